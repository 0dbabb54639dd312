module example.com/gofix

go 1.22
