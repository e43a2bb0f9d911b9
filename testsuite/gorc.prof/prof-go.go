// gorc-prof test program: Go, whose linker writes .debug_frame and no
// .eh_frame.
//
//	prof-go ROUNDS
//
// Two goroutines each run ROUNDS rounds of
//
//	runtime.goexit -> ... -> main.worker -> main.chain -> main.leaf
//
// (a CPU loop) and of main.churn, which allocates: the garbage
// collector's work then runs on the threads' own stacks (g0), reached
// through runtime.systemstack, where a DWARF walk must stop.
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

type node struct {
	next *node
	pad  [64]byte
}

var sink int

//go:noinline
func leaf(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

//go:noinline
func chain(n int) int { return leaf(n) + 1 }

//go:noinline
func churn(n int) *node {
	var h *node
	for i := 0; i < n; i++ {
		h = &node{next: h}
	}
	return h
}

//go:noinline
func worker(wg *sync.WaitGroup, rounds int, out *int) {
	defer wg.Done()
	for i := 0; i < rounds; i++ {
		*out += chain(200000)
		if churn(5000) == nil {
			*out++
		}
	}
}

func main() {
	rounds, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: prof-go ROUNDS")
		os.Exit(2)
	}
	var wg sync.WaitGroup
	var out [2]int
	for i := range out {
		wg.Add(1)
		go worker(&wg, rounds, &out[i])
	}
	wg.Wait()
	sink = out[0] + out[1]
	fmt.Println("done")
}
