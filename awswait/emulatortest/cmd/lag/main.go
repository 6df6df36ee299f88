// Command lag measures, on dynalite's real CREATING to ACTIVE, how long
// after a table becomes ACTIVE a wait for it ends, and how many
// DescribeTable requests it makes: awswait's TableExists against
// aws-sdk-go-v2's own TableExistsWaiter, both with DynamoDB's delays (20 s
// to 120 s between polls), with a budget of 2 minutes and one of 30
// seconds. It prints the row of bench/README.md. Run it from
// awswait/emulatortest (it needs Node, and takes about a minute of real
// time: dynalite's clock is the wall clock):
//
//	go run ./cmd/lag
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/awswait/emulatortest/emulators"
	"github.com/waitable/waitable/waiter"
)

// result is one wait's.
type result struct {
	ok       bool
	lag      time.Duration // from ACTIVE to the wait's end
	requests int
}

func main() {
	n := flag.Int("n", 20, "tables per implementation and budget, waited for at once")
	ready := flag.Duration("ready", 25*time.Second, "how long dynalite keeps each table CREATING")
	flag.Parse()
	if err := run(*n, *ready); err != nil {
		fmt.Fprintln(os.Stderr, "lag:", err)
		os.Exit(1)
	}
}

func run(n int, ready time.Duration) error {
	endpoint, stop, err := emulators.Launch("dynalite", ready)
	if err != nil {
		return err
	}
	defer stop()
	budgets := []time.Duration{2 * time.Minute, 30 * time.Second}
	sides := []string{"Waitable (awswait TableExists)", "aws-sdk-go-v2 TableExistsWaiter"}
	results := make([][][]result, len(budgets))
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(budgets)*n)
	ctx := context.Background()
	for b, budget := range budgets {
		results[b] = make([][]result, len(sides))
		for s := range sides {
			results[b][s] = make([]result, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, err := wait(ctx, endpoint, fmt.Sprintf("t-%d-%d-%d", b, s, i), s == 0, budget, ready)
					results[b][s][i] = r
					if err != nil {
						errs <- err
					}
				}()
			}
		}
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	fmt.Printf("Detection lag on dynalite: a table CREATING for %s, %d waits per row at once, DynamoDB's delays (20s to 120s); lag from ACTIVE to the wait's end:\n\n", ready, n)
	fmt.Println("| budget | implementation | found ACTIVE | lag median [min–max] | DescribeTable requests per wait |")
	fmt.Println("|---|---|---|---|---|")
	for b, budget := range budgets {
		for s, side := range sides {
			var lags []time.Duration
			var reqs []int
			for _, r := range results[b][s] {
				reqs = append(reqs, r.requests)
				if r.ok {
					lags = append(lags, r.lag)
				}
			}
			slices.Sort(lags)
			slices.Sort(reqs)
			lag := "–"
			if len(lags) > 0 {
				lag = fmt.Sprintf("%.1fs [%.1f–%.1f]", lags[len(lags)/2].Seconds(), lags[0].Seconds(), lags[len(lags)-1].Seconds())
			}
			fmt.Printf("| %s | %s | %d of %d | %s | %d [%d–%d] |\n", budget, side, len(lags), n, lag, reqs[len(reqs)/2], reqs[0], reqs[len(reqs)-1])
		}
	}
	return nil
}

// wait creates table and waits for it with one side, with a client of
// its own.
func wait(ctx context.Context, endpoint, table string, waitable bool, budget, ready time.Duration) (result, error) {
	requests := &emulators.Counter{}
	client := emulators.DynamoDB(endpoint, requests.Client())
	if err := emulators.CreateTable(ctx, client, table); err != nil {
		return result{}, err
	}
	active := time.Now().Add(ready) // dynalite's timer starts with the CreateTable call: this is no earlier
	in := &dynamodb.DescribeTableInput{TableName: aws.String(table)}
	if waitable {
		w, err := awswait.New(client.DescribeTable, "TableExists")
		if err != nil {
			return result{}, err
		}
		_, err = w.Wait(ctx, in, budget)
		return outcome(err, active, requests)
	}
	return outcome(dynamodb.NewTableExistsWaiter(client).Wait(ctx, in, budget), active, requests)
}

// outcome is a wait's result; a timeout is an outcome, other errors not.
func outcome(err error, active time.Time, requests *emulators.Counter) (result, error) {
	r := result{ok: err == nil, lag: time.Since(active), requests: requests.Requests("DescribeTable")}
	if err != nil && !isTimeout(err) {
		return r, err
	}
	return r, nil
}

// isTimeout reports whether err is a wait's running out of budget, as
// either side says it (the SDK's waiters have no error type for it).
func isTimeout(err error) bool {
	return errors.Is(err, waiter.ErrTimeout) || strings.Contains(err.Error(), "exceeded max wait time")
}
