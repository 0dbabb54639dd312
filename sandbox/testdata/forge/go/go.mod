module example.com/forge

go 1.22
