// The network for static binaries (tests/integration/notify.sh): a Go
// program dials each HOST:PORT argument with the pure Go resolver and no
// cgo, sends "from-go" and prints what came back. Built by make
// (build/tests/progs/goclient).
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

func main() {
	for _, target := range os.Args[1:] {
		c, err := net.DialTimeout("tcp", target, 10*time.Second)
		if err != nil {
			fmt.Println("DIAL", target, err)
			continue
		}
		c.Write([]byte("from-go\n"))
		c.(*net.TCPConn).CloseWrite()
		b, _ := io.ReadAll(c)
		fmt.Printf("GOT %s %s", target, b)
		c.Close()
	}
}
