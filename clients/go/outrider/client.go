// Package outrider is a thin Go client for the Outrider sidecar.
//
// The generated messages and gRPC stubs live in package outriderv1
// (github.com/outrider-dev/outrider/clients/go/outrider/v1); this package adds only what every caller
// would otherwise write again: the default address, the bearer token on every call, a default deadline,
// CheckAction that re-attaches by request id after a deadline, CheckStream (many checks on one
// CheckActions stream), and the google.rpc.ErrorInfo of an error.
package outrider

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	outriderv1 "github.com/outrider-dev/outrider/clients/go/outrider/v1"
)

const (
	// DefaultAddress is where `outrider serve` listens unless told otherwise.
	DefaultAddress = "127.0.0.1:50051"
	// DefaultTimeout is the deadline of a call whose context has none.
	DefaultTimeout = 10 * time.Second
)

type config struct {
	token       string
	timeout     time.Duration
	dialOptions []grpc.DialOption
}

// Option configures New.
type Option func(*config)

// WithToken sends `authorization: Bearer <token>` on every call (the sidecar requires a credential).
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithTimeout sets the deadline of calls whose context has none (default DefaultTimeout). For
// CheckAction it is the deadline of one attempt.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithDialOptions adds gRPC dial options, e.g. TLS transport credentials instead of plaintext.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(c *config) { c.dialOptions = append(c.dialOptions, opts...) }
}

// Client holds one connection and a stub per service. Use the stubs for every RPC; CheckAction
// has a convenience wrapper.
type Client struct {
	conn       *grpc.ClientConn
	timeout    time.Duration
	Supervisor outriderv1.SupervisorServiceClient
	Recovery   outriderv1.RecoveryServiceClient
	Safeguard  outriderv1.SafeguardServiceClient
	Access     outriderv1.AccessServiceClient
}

// New connects to the sidecar at address (DefaultAddress when empty). The connection is plaintext
// unless WithDialOptions gives transport credentials; it is made lazily, on the first call.
func New(address string, opts ...Option) (*Client, error) {
	if address == "" {
		address = DefaultAddress
	}
	cfg := config{timeout: DefaultTimeout}
	for _, opt := range opts {
		opt(&cfg)
	}
	dial := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithChainUnaryInterceptor(unaryDefaults(cfg)),
		grpc.WithChainStreamInterceptor(streamDefaults(cfg)),
	}
	conn, err := grpc.NewClient(address, append(dial, cfg.dialOptions...)...)
	if err != nil {
		return nil, err
	}
	return &Client{
		conn:       conn,
		timeout:    cfg.timeout,
		Supervisor: outriderv1.NewSupervisorServiceClient(conn),
		Recovery:   outriderv1.NewRecoveryServiceClient(conn),
		Safeguard:  outriderv1.NewSafeguardServiceClient(conn),
		Access:     outriderv1.NewAccessServiceClient(conn),
	}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

func withToken(ctx context.Context, token string) context.Context {
	if token == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

func unaryDefaults(cfg config) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
		invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if _, ok := ctx.Deadline(); !ok && cfg.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, cfg.timeout)
			defer cancel()
		}
		return invoker(withToken(ctx, cfg.token), method, req, reply, cc, opts...)
	}
}

// Streams (WatchApproval, Attach, ...) live as long as their context: no default deadline.
func streamDefaults(cfg config) grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
		streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		return streamer(withToken(ctx, cfg.token), desc, cc, method, opts...)
	}
}

// CheckAction asks "may this agent do this action?". A block is an answer (Allowed false), not an error.
//
// Each attempt has the client's timeout. When an attempt runs out of time (the sidecar may be holding
// the call for a human approval), the same request, with the same request_id, is sent again and
// re-attaches to its pending decision; this goes on until ctx is done. A request without a request_id
// gets a random one first.
func (c *Client) CheckAction(ctx context.Context, req *outriderv1.CheckActionRequest,
	opts ...grpc.CallOption) (*outriderv1.CheckActionResponse, error) {
	if req.GetRequestId() == "" {
		req = proto.Clone(req).(*outriderv1.CheckActionRequest)
		req.RequestId = NewRequestID()
	}
	if c.timeout <= 0 {
		return c.Supervisor.CheckAction(ctx, req, opts...)
	}
	for {
		attempt, cancel := context.WithTimeout(ctx, c.timeout)
		resp, err := c.Supervisor.CheckAction(attempt, req, opts...)
		cancel()
		if status.Code(err) != codes.DeadlineExceeded || ctx.Err() != nil {
			return resp, err
		}
	}
}

// NewRequestID returns a random idempotency key (32 hex characters).
func NewRequestID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// ErrorInfo returns the google.rpc.ErrorInfo (domain "outrider.dev") of an error from the sidecar:
// Reason is a stable word such as INVALID_FIELD or NOT_FOUND; Metadata["field"] names the offending
// request field, when there is one. Nil when err carries none.
func ErrorInfo(err error) *errdetails.ErrorInfo {
	var withStatus interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &withStatus) {
		return nil
	}
	for _, d := range withStatus.GRPCStatus().Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info
		}
	}
	return nil
}
