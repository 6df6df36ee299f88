// Package temporal runs Smithy waiters as durable Temporal workflows: a
// wait that survives restarts of the process that started it and of the
// workers that run it, and spreads over a fleet of workers.
//
//	// On every worker:
//	temporal.Register(w, "TableExists", tableExists) // a *waiter.Waiter[I, O]
//	// Anywhere:
//	wait, err := temporal.Start[I, O](ctx, c, "TableExists", in, 20*time.Minute, client.StartWorkflowOptions{TaskQueue: "waits"})
//	out, err := wait.Get(ctx) // errors.Is(err, waiter.ErrTimeout) works here too
//
// The workflow drives the waiter's own core ([waiter.Waiter.Begin] and
// [waiter.Waiter.Step]), the deadline in workflow time, the jitter drawn
// from the seed kept in the wait's [waiter.Checkpoint], so that a replay makes
// the same decisions. It polls as Temporal advises ([Mode]): while the
// delay before the next poll is short (under [DefaultHeartbeatBelow]),
// the polls run inside one activity that heartbeats the wait's Checkpoint
// after every poll and adds no history event per poll; a worker that dies
// mid-activity costs only the call it had in flight, which another worker
// makes again from the last heartbeat. While delays are long, each poll is
// an activity that makes one call and judges it with the waiter's
// acceptors ([waiter.Waiter.Call]), and each delay a durable timer. A
// wait continues as new every [DefaultAttemptsPerRun] attempts, carrying
// its Checkpoint, so that its history stays bounded however long it polls. [Wait.Progress] queries the attempts so far and the
// checkpoint; cancelling the workflow cancels the wait and the call in
// flight. A wait learns from its waiter's history (see [waiter.History])
// as it begins, and is recorded in it as it ends, on the worker: inside
// the heartbeating activity (no history event), or in a local activity
// (one marker) when it polls with timers. What it learnt is in its
// Checkpoint (Checkpoint.Prior), so a replay, or a worker whose waiter
// has learnt nothing, estimates and, with waiter.WithLearnedSchedule,
// decides as the wait did.
//
// Many resources wait in one workflow, a durable [waiter.WaitAll]: each
// input is a wait of its own (its own attempts, deadline and delays, run
// concurrently in the workflow), and one that fails fails neither the
// others nor the workflow. A group's run continues as new when its
// history reaches [DefaultGroupHistoryLimit] events, every wait carried
// on where it stood.
//
//	g, err := temporal.StartGroup[I, O](ctx, c, "TableExists", tables, 20*time.Minute,
//		client.StartWorkflowOptions{ID: "tables-orders", TaskQueue: "waits"},
//		temporal.WithGroupConcurrency(50)) // optional: at most 50 waits at once
//	outcomes, err := g.Get(ctx) // one waiter.Result per input, in order
//	for i, o := range outcomes {
//		if errors.Is(o.Err, waiter.ErrFailure) { // each wait's own *waiter.Error
//			log.Printf("%v failed: %v", tables[i], o.Err)
//		}
//	}
//	// err: nil, or a *waiter.GroupError listing the waits that did not succeed.
//	p, err := g.Progress(ctx) // each wait's checkpoint, latest attempts and outcome so far
//
// Inputs and outputs travel through Temporal's data converter (JSON by
// default): I and O must round-trip through it. The waiter's error kinds
// (ErrTimeout, ErrFailure, ErrMaxPolls, the Failure kind, the acceptor)
// survive on the client. So does what says the operation's error's kind:
// its message, its error code, its HTTP status and the name of its Go
// type, in an [*OperationError], the *waiter.Error's Err. errors.As(err,
// new(*temporal.OperationError)) reads them, classify.ErrorMatches
// matches the code or the type name, and classify reads the code and the
// status; inside the workflow, the waiter's core judges each poll's error
// by its code and status as in process (waiter.WithNotFoundLimit counts a
// 404 or a NotFound code). The error's Go value does not cross:
// errors.As(err, new(*types.ResourceNotFoundException)) finds nothing;
// match its code or type name instead.
package temporal
