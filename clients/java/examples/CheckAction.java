// Asks the sidecar whether an agent may deploy to production at a cost of 140, then asks about three
// more actions at once on one check stream. Run it with the client's classpath (see README "Clients"):
//   OUTRIDER_TOKEN=otr_... [OUTRIDER_ADDRESS=127.0.0.1:50051] [OUTRIDER_AGENT=release-agent] \
//   java -cp "$CP" examples/CheckAction.java

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import dev.outrider.client.CheckStream;
import dev.outrider.client.OutriderClient;
import dev.outrider.v1.CheckActionRequest;
import dev.outrider.v1.CheckActionResponse;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

public class CheckAction {
  public static void main(String[] args) {
    String agent = System.getenv().getOrDefault("OUTRIDER_AGENT", "release-agent");
    try (OutriderClient client = OutriderClient.builder()
        .address(System.getenv("OUTRIDER_ADDRESS")) // null: 127.0.0.1:50051
        .token(System.getenv("OUTRIDER_TOKEN"))
        .build()) {
      Struct context = Struct.newBuilder()
          .putFields("cost", Value.newBuilder().setNumberValue(140).build())
          .putFields("target", Value.newBuilder().setStringValue("production").build())
          .build();
      CheckActionResponse r = client.checkAction(CheckActionRequest.newBuilder()
          .setAgentId(agent).setAction("deploy").setContext(context).build());
      // A block is an answer, not an error.
      System.out.printf("allowed=%b reason=\"%s\" severity=%s guardrail=\"%s\" warnings=%d%n",
          r.getAllowed(), r.getReason(), r.getSeverity(), r.getGuardrail(), r.getWarningsCount());

      // Many checks, from any thread, on one CheckActions stream; close() waits for their answers.
      try (CheckStream checks = client.checkStream()) {
        List<String> actions = List.of("read-logs", "open-pr", "run-tests");
        List<CompletableFuture<CheckActionResponse>> answers = new ArrayList<>();
        for (String action : actions) {
          answers.add(checks.check(CheckActionRequest.newBuilder().setAgentId(agent).setAction(action).build()));
        }
        for (int i = 0; i < actions.size(); i++) {
          try {
            System.out.printf("%s: allowed=%b%n", actions.get(i), answers.get(i).join().getAllowed());
          } catch (CompletionException e) {
            throw (RuntimeException) e.getCause(); // a StatusRuntimeException, as checkAction throws
          }
        }
      }
    } catch (StatusRuntimeException e) {
      String why = OutriderClient.errorInfo(e)
          .map(i -> " (reason " + i.getReason() + ", field " + i.getMetadataOrDefault("field", "") + ")").orElse("");
      System.err.println("the sidecar could not answer: " + e.getStatus() + why);
      System.exit(1);
    }
  }
}
