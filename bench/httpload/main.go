// Command httpload is the bench's HTTP load generator: ghz's counterpart for a REST decision API.
//
// N workers (-c) each POST the same body (-body, a file) to -url in a loop, on keep-alive connections,
// for -z; then it prints one JSON object: calls, errors, seconds, rps, p50_us, p99_us. The first answer
// must contain -expect (the decision the bench claims), so a misconfigured policy cannot pass as fast.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

func main() {
	url := flag.String("url", "", "the endpoint to POST to")
	bodyFile := flag.String("body", "", "a file holding the request body (JSON)")
	concurrency := flag.Int("c", 1, "concurrent workers, each with its own connection")
	duration := flag.Duration("z", 8*time.Second, "how long to send")
	warmup := flag.Int("warmup", 200, "untimed calls per worker first")
	expect := flag.String("expect", "", "a substring the first answer must contain")
	flag.Parse()
	body, err := os.ReadFile(*bodyFile)
	if err != nil || *url == "" {
		fmt.Fprintln(os.Stderr, "httpload: -url and a readable -body are required:", err)
		os.Exit(2)
	}
	transport := &http.Transport{MaxIdleConnsPerHost: *concurrency, MaxConnsPerHost: *concurrency}
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	call := func() ([]byte, error) {
		resp, err := client.Post(*url, "application/json", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("status %d: %s", resp.StatusCode, out)
		}
		return out, err
	}
	first, err := call()
	if err != nil || !strings.Contains(string(first), *expect) {
		fmt.Fprintf(os.Stderr, "httpload: first answer %q (error %v) lacks %q\n", first, err, *expect)
		os.Exit(1)
	}

	var wg sync.WaitGroup
	for w := 0; w < *concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < *warmup; i++ {
				call()
			}
		}()
	}
	wg.Wait()

	latencies := make([][]time.Duration, *concurrency)
	errors := make([]int, *concurrency)
	start := time.Now()
	stop := start.Add(*duration)
	for w := 0; w < *concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			own := make([]time.Duration, 0, 1<<16)
			for {
				t0 := time.Now()
				if !t0.Before(stop) {
					break
				}
				if _, err := call(); err != nil {
					errors[w]++
					continue
				}
				own = append(own, time.Since(t0))
			}
			latencies[w] = own
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	var all []time.Duration
	failed := 0
	for w := range latencies {
		all = append(all, latencies[w]...)
		failed += errors[w]
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(q float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[min(len(all)-1, int(q*float64(len(all))))].Microseconds())
	}
	json.NewEncoder(os.Stdout).Encode(map[string]any{
		"calls": len(all), "errors": failed, "seconds": elapsed, "rps": float64(len(all)) / elapsed,
		"p50_us": pct(0.5), "p99_us": pct(0.99),
	})
}
