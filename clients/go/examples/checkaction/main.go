// Command checkaction asks the sidecar whether an agent may deploy to production at a cost of 140, then
// asks about three more actions at once on one check stream.
//
//	OUTRIDER_TOKEN=otr_... [OUTRIDER_ADDRESS=127.0.0.1:50051] [OUTRIDER_AGENT=release-agent] go run ./examples/checkaction
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"sync"

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

	// Many checks from many goroutines on one CheckActions stream; Close waits for their answers.
	stream, err := client.CheckStream(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	actions := []string{"read-logs", "open-pr", "run-tests"}
	answers := make([]string, len(actions))
	failed := make([]bool, len(actions))
	var wg sync.WaitGroup
	for i, action := range actions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := stream.Check(context.Background(), &outriderv1.CheckActionRequest{AgentId: agent, Action: action})
			if err != nil {
				answers[i], failed[i] = fmt.Sprintf("%s: the sidecar could not answer: %v", action, err), true
				return
			}
			answers[i] = fmt.Sprintf("%s: allowed=%t", action, r.GetAllowed())
		}()
	}
	wg.Wait()
	if err := stream.Close(); err != nil {
		log.Fatal(err)
	}
	exit := 0
	for i, a := range answers {
		fmt.Println(a)
		if failed[i] {
			exit = 1
		}
	}
	if exit != 0 {
		client.Close()
		os.Exit(exit)
	}
}
