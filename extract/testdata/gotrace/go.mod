module example.com/gotrace

go 1.22
