package gcpwait_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/longrunning"
	lroauto "cloud.google.com/go/longrunning/autogen"
	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/api/option"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// answer is what the fake Operations service answers to one GetOperation
// of an operation: an RPC error (code), or the operation, not done, done,
// or done with an error (failed).
type answer struct {
	code     codes.Code
	retry    time.Duration // the RPC error's google.rpc.RetryInfo
	done     bool
	failed   bool
	progress int32
}

// job is one operation of the fake service. Its answers are given in turn,
// the last one repeated; or, with readyAt set, it is done from that instant
// on (the clock of the goroutine that asks: virtual in a synctest bubble),
// with its progress growing until then.
type job struct {
	answers   []answer
	created   time.Time
	readyAt   time.Time
	gets      int
	cancelled bool
}

// ops is an in-process google.longrunning.Operations service: the gRPC
// interface Google publishes, answering from scripts. It counts each
// operation's GetOperation and CancelOperation calls.
type ops struct {
	longrunningpb.UnimplementedOperationsServer
	mu    sync.Mutex
	jobs  map[string]*job
	times []time.Time // when each GetOperation came
}

func (s *ops) add(name string, j *job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs == nil {
		s.jobs = map[string]*job{}
	}
	s.jobs[name] = j
}

// gets returns how many GetOperation calls name got.
func (s *ops) gets(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jobs[name].gets
}

func (s *ops) cancelled(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jobs[name].cancelled
}

func (s *ops) GetOperation(_ context.Context, req *longrunningpb.GetOperationRequest) (*longrunningpb.Operation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.times = append(s.times, time.Now())
	j, ok := s.jobs[req.GetName()]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "operation %q not found", req.GetName())
	}
	j.gets++
	a := answer{done: true}
	switch {
	case !j.readyAt.IsZero():
		now := time.Now()
		a.done = !now.Before(j.readyAt)
		if total := j.readyAt.Sub(j.created); total > 0 && !a.done {
			a.progress = int32(100 * now.Sub(j.created) / total)
		}
	case len(j.answers) > 0:
		a = j.answers[min(j.gets, len(j.answers))-1]
	}
	if j.cancelled {
		a = answer{done: true, failed: true}
	}
	if a.code != codes.OK {
		st := status.New(a.code, "scripted "+a.code.String())
		if a.retry > 0 {
			st, _ = st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(a.retry)})
		}
		return nil, st.Err()
	}
	if a.done && !a.failed {
		a.progress = 100
	}
	meta, _ := anypb.New(wrapperspb.Int32(a.progress))
	op := &longrunningpb.Operation{Name: req.GetName(), Metadata: meta, Done: a.done}
	switch {
	case j.cancelled:
		op.Result = &longrunningpb.Operation_Error{Error: status.New(codes.Canceled, "cancelled").Proto()}
	case a.failed:
		op.Result = &longrunningpb.Operation_Error{Error: status.New(codes.FailedPrecondition, "the job failed").Proto()}
	case a.done:
		resp, _ := anypb.New(wrapperspb.String("result of " + req.GetName()))
		op.Result = &longrunningpb.Operation_Response{Response: resp}
	}
	return op, nil
}

func (s *ops) CancelOperation(_ context.Context, req *longrunningpb.CancelOperationRequest) (*emptypb.Empty, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[req.GetName()]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "operation %q not found", req.GetName())
	}
	j.cancelled = true
	return &emptypb.Empty{}, nil
}

// serve starts s on an in-memory listener (grpc's bufconn) and returns
// longrunning's generated client of it; both end when the test does. In
// a synctest bubble, every goroutine of the server and of the client is
// the bubble's, blocked on its channels and conditions when idle, so that
// time moves only when they all wait (a loopback socket's reader is never
// durably blocked, and would hold virtual time still).
func serve(t *testing.T, s *ops) *lroauto.OperationsClient {
	t.Helper()
	c, stop, err := start(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return c
}

// start is serve for a caller with no *testing.T (an example): stop
// ends the client and the server.
func start(ctx context.Context, s *ops) (c *lroauto.OperationsClient, stop func(), err error) {
	lis := bufconn.Listen(1 << 16)
	srv := grpc.NewServer()
	longrunningpb.RegisterOperationsServer(srv, s)
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(lis)
	}()
	stopServer := func() {
		srv.Stop()
		<-done
	}
	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		stopServer()
		return nil, nil, err
	}
	c, err = lroauto.NewOperationsClient(ctx, option.WithGRPCConn(conn))
	if err != nil {
		conn.Close()
		stopServer()
		return nil, nil, err
	}
	return c, func() {
		c.Close()
		conn.Close()
		stopServer()
	}, nil
}

// client stands for a generated Google Cloud client: its methods build
// the wrapper of an operation from its name, as generated clients'
// XxxOperation(name) methods do.
type client struct{ lro *lroauto.OperationsClient }

// JobOperation rebuilds the wrapper of an operation from its name.
func (c client) JobOperation(name string) *JobOperation {
	return &JobOperation{wrapper{longrunning.InternalNewOperation(c.lro, &longrunningpb.Operation{Name: name})}}
}

// EmptyJobOperation rebuilds the wrapper of an operation whose response
// is google.protobuf.Empty.
func (c client) EmptyJobOperation(name string) *EmptyJobOperation {
	return &EmptyJobOperation{wrapper{longrunning.InternalNewOperation(c.lro, &longrunningpb.Operation{Name: name})}}
}

// wrapper is what the generator's wrappers have in common: the
// operation, its metadata (here a percentage), its state and its name.
type wrapper struct{ lro *longrunning.Operation }

func (op *wrapper) Metadata() (*wrapperspb.Int32Value, error) {
	var meta wrapperspb.Int32Value
	if err := op.lro.Metadata(&meta); err == longrunning.ErrNoMetadata {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return &meta, nil
}

func (op *wrapper) Done() bool   { return op.lro.Done() }
func (op *wrapper) Name() string { return op.lro.Name() }

// JobOperation is a wrapper in the shape Google's generator gives them
// (spanner admin's CreateDatabaseOperation, say), with the same bodies.
type JobOperation struct{ wrapper }

func (op *JobOperation) Poll(ctx context.Context, opts ...gax.CallOption) (*wrapperspb.StringValue, error) {
	var resp wrapperspb.StringValue
	if err := op.lro.Poll(ctx, &resp, opts...); err != nil {
		return nil, err
	}
	if !op.Done() {
		return nil, nil
	}
	return &resp, nil
}

func (op *JobOperation) Wait(ctx context.Context, opts ...gax.CallOption) (*wrapperspb.StringValue, error) {
	var resp wrapperspb.StringValue
	if err := op.lro.WaitWithInterval(ctx, &resp, time.Minute, opts...); err != nil {
		return nil, err
	}
	return &resp, nil
}

// EmptyJobOperation is the generator's wrapper of an operation whose
// response is google.protobuf.Empty (UpdateDatabaseDdlOperation's shape).
type EmptyJobOperation struct{ wrapper }

func (op *EmptyJobOperation) Poll(ctx context.Context, opts ...gax.CallOption) error {
	return op.lro.Poll(ctx, nil, opts...)
}

// ProgressJobOperation is JobOperation with a metadata that reports a
// progress percent, as Google's operations' metadata do.
type ProgressJobOperation struct{ JobOperation }

// ProgressJobOperation rebuilds such a wrapper from its name.
func (c client) ProgressJobOperation(name string) *ProgressJobOperation {
	return &ProgressJobOperation{*c.JobOperation(name)}
}

func (op *ProgressJobOperation) Metadata() (*jobProgress, error) {
	m, err := op.wrapper.Metadata()
	if m == nil {
		return nil, err
	}
	return &jobProgress{percent: m.GetValue()}, err
}

// jobProgress is a metadata with a progress percent.
type jobProgress struct{ percent int32 }

func (p *jobProgress) GetProgressPercent() int32 { return p.percent }
