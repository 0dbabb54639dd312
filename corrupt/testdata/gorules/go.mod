module example.com/mut

go 1.22
