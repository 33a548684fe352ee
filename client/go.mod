module github.com/adcamp/adcamp/client

go 1.23
