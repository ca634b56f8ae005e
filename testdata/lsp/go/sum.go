package main

// Sum adds two numbers.
func Sum(a, b int) int {
	return a + b
}
