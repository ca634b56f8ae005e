package main

import "fmt"

func main() {
	total := Sum(2, 3)
	fmt.Println(total)
}
