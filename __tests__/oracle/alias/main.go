package main

import (
	"fmt"
	"io"
	"os"

	"sigs.k8s.io/yaml"
)

func main() {
	b, _ := io.ReadAll(os.Stdin)
	var v interface{}
	if err := yaml.Unmarshal(b, &v); err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("ok")
}
