//go:build !js

package bridge

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// Serve answers requests read from standard input, one JSON object a line, each on a goroutine
// of its own, with one JSON line each on standard output carrying the request's id, until
// standard input ends (src/adapters/native-render-program.ts). Handlers get the request's
// policies and confine their reads to them. With -max-memory, the program stops with Go's
// "out of memory" text once the memory it holds from the system passes that many bytes
// (input max-render-memory).
func Serve(handlers map[string]Handler) {
	maxMemory := flag.Uint64("max-memory", 0, "stop once the memory held from the system passes this many bytes (0: no limit)")
	flag.Parse()
	// A render's heap is small (tens of MB) and short-lived: collecting at five times the live
	// heap instead of Go's default twice cost about a sixth less CPU on the bench repository's
	// renders than at three times (docs/renderers.md#native-kustomize). Near max-memory the
	// collector works harder instead (a soft limit at three quarters of it), so that a render
	// with a large live heap is collected more often rather than stopped.
	debug.SetGCPercent(400)
	if *maxMemory > 0 {
		debug.SetMemoryLimit(int64(*maxMemory / 4 * 3))
		go watchMemory(*maxMemory)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	var running sync.WaitGroup
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			running.Add(1)
			go func(raw []byte) {
				defer running.Done()
				answer := handle(raw, handlers, true)
				mu.Lock()
				defer mu.Unlock()
				out.Write(answer)
				out.WriteByte('\n')
				out.Flush()
			}(line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "render module: reading requests: %v\n", err)
			os.Exit(1)
		}
	}
	running.Wait()
}

// watchMemory ends the program as the Go runtime ends a WebAssembly one that cannot grow its
// memory: the engine reads "out of memory" on standard error and names the limit.
func watchMemory(limit uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	for range time.Tick(20 * time.Millisecond) {
		metrics.Read(sample)
		if sample[0].Value.Uint64() > limit {
			fmt.Fprintf(os.Stderr, "fatal error: out of memory (%d bytes held, limit %d)\n", sample[0].Value.Uint64(), limit)
			os.Exit(2)
		}
	}
}
