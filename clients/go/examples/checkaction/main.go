// Command checkaction asks the sidecar whether an agent may deploy to production at a cost of 140.
//
//	OUTRIDER_TOKEN=otr_... [OUTRIDER_ADDRESS=127.0.0.1:50051] [OUTRIDER_AGENT=release-agent] go run ./examples/checkaction
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/outrider-dev/outrider/clients/go/outrider"
	outriderv1 "github.com/outrider-dev/outrider/clients/go/outrider/v1"
)

func main() {
	agent := os.Getenv("OUTRIDER_AGENT")
	if agent == "" {
		agent = "release-agent"
	}
	// An empty address means outrider.DefaultAddress (127.0.0.1:50051).
	client, err := outrider.New(os.Getenv("OUTRIDER_ADDRESS"), outrider.WithToken(os.Getenv("OUTRIDER_TOKEN")))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	ctx, err := structpb.NewStruct(map[string]any{"cost": 140, "target": "production"})
	if err != nil {
		log.Fatal(err)
	}
	r, err := client.CheckAction(context.Background(), &outriderv1.CheckActionRequest{
		AgentId: agent, Action: "deploy", Context: ctx,
	})
	if err != nil {
		if info := outrider.ErrorInfo(err); info != nil {
			log.Fatalf("the sidecar could not answer: %v (reason %s, field %q)", err, info.GetReason(), info.GetMetadata()["field"])
		}
		log.Fatal(err)
	}
	// A block is an answer, not an error.
	fmt.Printf("allowed=%t reason=%q severity=%s guardrail=%q warnings=%d\n",
		r.GetAllowed(), r.GetReason(), r.GetSeverity(), r.GetGuardrail(), len(r.GetWarnings()))
}
