// Command gates reads testgate's registry (go run ./testgate/cmd/gates):
//
//	gates list                    the registered suites: name, what runs, its variable, command, cost
//	gates report SKIPS            what make test did not run: the registered suites, then each
//	                              skip recorded in SKIPS (STE_SKIPS), with its reason
//	gates verify-all [NAME...]    runs every registered suite (or those named) one after the
//	                              other, timing each — those marked Beside (failover's rounds,
//	                              which mostly wait; the fuzz targets' fixed time) in the
//	                              background meanwhile; a negative control must fail. Exit
//	                              status 1 when any suite did not do what it must.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ste-utility/ste/testgate"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "list":
		list()
	case "report":
		if len(os.Args) != 3 {
			usage()
		}
		report(os.Args[2])
	case "verify-all":
		os.Exit(verifyAll(os.Args[2:]))
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: gates list | report SKIPS | verify-all [NAME...]")
	os.Exit(2)
}

func list() {
	w := tabwriter.NewWriter(os.Stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(w, "suite\truns\tturned on by\tcommand\tcost")
	for _, s := range testgate.Suites {
		env := s.Env
		if env == "" {
			env = "(its target)"
		}
		tests := s.Tests
		if s.Fails {
			tests += " — must fail"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", s.Name, tests, env, s.Run, s.Cost)
	}
	w.Flush()
}

// report prints, at the end of make test, what it did not run and why.
func report(path string) {
	fmt.Println("\n===== what make test did not run =====")
	fmt.Println("Registered suites, each its own target (make verify-all runs them all):")
	for _, s := range testgate.Suites {
		fmt.Printf("  %-20s %-28s %s\n", s.Name, s.Run, s.Cost)
	}
	var lines []string
	if f, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		f.Close()
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	var missing, suites, other []string
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) < 4 {
			continue
		}
		item := fmt.Sprintf("  %s %s: %s", f[0], f[1], f[3])
		switch f[2] {
		case "missing":
			missing = append(missing, item)
		case "suite":
			suites = append(suites, item)
		default:
			other = append(other, item)
		}
	}
	fmt.Printf("Tests skipped because their suite is off (%d):\n", len(suites))
	for _, l := range suites {
		fmt.Println(l)
	}
	fmt.Printf("Tests that do not apply to the backend they were given (%d):\n", len(other))
	for _, l := range other {
		fmt.Println(l)
	}
	fmt.Printf("Tests skipped for want of a tool, a privilege or a file (%d; under CI=true these fail):\n", len(missing))
	for _, l := range missing {
		fmt.Println(l)
	}
	if len(missing) == 0 {
		fmt.Println("  none")
	}
}

type result struct {
	s      testgate.Suite
	took   time.Duration
	err    error
	ok     bool
	notRun error // what it needs and this machine lacks
}

// verifyAll runs the registered suites named (all when none) and reports:
// the suites marked Beside start first, each in the background with its
// output in test-output/verify-all-NAME.log, and the others run one after
// the other meanwhile.
func verifyAll(names []string) int {
	var run []testgate.Suite
	for _, s := range testgate.Suites {
		if len(names) == 0 || slices.Contains(names, s.Name) {
			run = append(run, s)
		}
	}
	for _, n := range names {
		if _, ok := testgate.Lookup(n); !ok {
			fmt.Fprintf(os.Stderr, "gates: no suite %q (gates list)\n", n)
			return 2
		}
	}
	start := time.Now()
	results := make([]result, len(run))
	var beside sync.WaitGroup
	for _, pass := range []bool{true, false} { // the Beside suites first
		for i, s := range run {
			if s.Beside != pass {
				continue
			}
			if s.Needs != nil {
				if err := s.Needs(); err != nil {
					results[i] = result{s: s, notRun: err, ok: !testgate.Strict()}
					fmt.Printf("\n===== verify-all: %s %s =====\n", s.Name, verdict(results[i]))
					continue
				}
			}
			if !s.Beside {
				fmt.Printf("\n===== verify-all: %s (%s) =====\n", s.Name, s.Run)
				results[i] = runSuite(s, os.Stdout)
				fmt.Printf("===== verify-all: %s %s in %s =====\n", s.Name, verdict(results[i]), results[i].took.Round(time.Second))
				continue
			}
			log := filepath.Join("test-output", "verify-all-"+s.Name+".log")
			os.MkdirAll(filepath.Dir(log), 0o755) // make test makes it; VERIFY=… alone may not have
			f, err := os.Create(log)
			if err != nil {
				results[i] = result{s: s, err: err}
				continue
			}
			fmt.Printf("\n===== verify-all: %s (%s) started beside the others, its output in %s =====\n", s.Name, s.Run, log)
			beside.Add(1)
			go func() {
				defer beside.Done()
				defer f.Close()
				results[i] = runSuite(s, f)
				fmt.Printf("\n===== verify-all: %s %s in %s (beside the others; %s) =====\n", s.Name, verdict(results[i]), results[i].took.Round(time.Second), log)
			}()
		}
	}
	beside.Wait()
	fmt.Println("\n===== verify-all =====")
	w := tabwriter.NewWriter(os.Stdout, 2, 8, 2, ' ', 0)
	failed, notRun := 0, 0
	for _, r := range results {
		if !r.ok {
			failed++
		}
		if r.notRun != nil {
			notRun++
		}
		lane := ""
		if r.s.Beside {
			lane = "\t(beside the others)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s%s\n", r.s.Name, verdict(r), r.took.Round(time.Second), lane)
	}
	fmt.Fprintf(w, "total\t%d of %d as they must (%d not run for want of what they need)\t%s\n",
		len(results)-failed-notRun, len(results), notRun, time.Since(start).Round(time.Second))
	w.Flush()
	if failed > 0 {
		return 1
	}
	return 0
}

// runSuite runs s's command from the repository's root, its output to out.
func runSuite(s testgate.Suite, out *os.File) result {
	t0 := time.Now()
	cmd := exec.Command("bash", "-c", s.Run)
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	r := result{s: s, took: time.Since(t0), err: err}
	r.ok = (err == nil) != s.Fails
	return r
}

func verdict(r result) string {
	switch {
	case r.notRun != nil && testgate.Strict():
		return "NOT RUN, a failure under CI=true: " + r.notRun.Error()
	case r.notRun != nil:
		return "not run: " + r.notRun.Error()
	case r.s.Fails && r.err != nil:
		return "failed, as a negative control must"
	case r.s.Fails:
		return "PASSED: the negative control must fail"
	case r.err != nil:
		return "FAILED (" + r.err.Error() + ")"
	}
	return "passed"
}
