module svc/sdk

go 1.19
