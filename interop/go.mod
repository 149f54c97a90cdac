module kguid/interop

go 1.22

require (
	github.com/fogfish/guid/v2 v2.1.0
	github.com/muyo/sno v1.2.1
)
