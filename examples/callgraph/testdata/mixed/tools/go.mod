module example.com/tools

go 1.22
