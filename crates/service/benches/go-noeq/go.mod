module go-noeq

go 1.19
