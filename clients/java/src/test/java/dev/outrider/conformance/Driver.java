package dev.outrider.conformance;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import com.google.rpc.ErrorInfo;
import dev.outrider.client.OutriderClient;
import dev.outrider.v1.AccessServiceGrpc;
import dev.outrider.v1.CheckActionRequest;
import dev.outrider.v1.CheckActionsRequest;
import dev.outrider.v1.CheckActionsResponse;
import dev.outrider.v1.RecoveryServiceGrpc;
import dev.outrider.v1.SafeguardServiceGrpc;
import dev.outrider.v1.SupervisorServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Java conformance driver: runs tests/conformance/scenarios.json against a live sidecar through
 * the generated method descriptors and marshallers (CheckAction through {@link OutriderClient}; a
 * {@code stream} step through the raw SupervisorService.CheckActions stream, whose answers it sorts by id). The
 * rules are those of tests/conformance/README.md, shared by the Python, TypeScript and Go drivers.
 */
public final class Driver {
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z0-9_]+)\\}");
  private static final List<ServiceDescriptor> SERVICES = List.of(
      SupervisorServiceGrpc.getServiceDescriptor(),
      RecoveryServiceGrpc.getServiceDescriptor(),
      SafeguardServiceGrpc.getServiceDescriptor(),
      AccessServiceGrpc.getServiceDescriptor());

  private final ManagedChannel channel;
  private final Map<String, String> tokens;
  private final Map<String, OutriderClient> clients = new HashMap<>();
  private final JsonElement defaultAs;

  private Driver(ManagedChannel channel, Map<String, String> tokens, JsonElement defaultAs) {
    this.channel = channel;
    this.tokens = tokens;
    this.defaultAs = defaultAs;
  }

  static final class StepFailure extends Exception {
    private static final long serialVersionUID = 1L;

    StepFailure(String message) {
      super(message);
    }
  }

  public static void main(String[] args) throws IOException {
    String address = Optional.ofNullable(System.getenv("OUTRIDER_CONFORMANCE_ADDRESS")).orElse(OutriderClient.DEFAULT_ADDRESS);
    Path path = Path.of(Optional.ofNullable(System.getenv("OUTRIDER_CONFORMANCE_SCENARIOS"))
        .orElse("../../tests/conformance/scenarios.json"));
    JsonObject suite = JsonParser.parseString(Files.readString(path, StandardCharsets.UTF_8)).getAsJsonObject();
    if (!"outrider-conformance/1".equals(suite.get("format").getAsString())) {
      throw new IllegalArgumentException(path + ": unknown format " + suite.get("format"));
    }
    Map<String, String> tokens = new HashMap<>();
    for (String name : suite.getAsJsonObject("credentials").keySet()) {
      String token = System.getenv("OUTRIDER_CONFORMANCE_TOKEN_" + name.toUpperCase(Locale.ROOT));
      tokens.put(name, token == null ? "" : token);
    }
    JsonObject defaults = suite.has("defaults") ? suite.getAsJsonObject("defaults") : new JsonObject();
    ManagedChannel channel = ManagedChannelBuilder.forTarget(address).usePlaintext().build();
    int passed = 0;
    int failed = 0;
    try {
      Driver driver = new Driver(channel, tokens, defaults.has("as") ? defaults.get("as") : new JsonPrimitive("operator"));
      JsonArray before = suite.has("before_each") ? suite.getAsJsonArray("before_each") : new JsonArray();
      for (JsonElement s : suite.getAsJsonArray("scenarios")) {
        JsonObject scenario = s.getAsJsonObject();
        String name = scenario.get("name").getAsString();
        try {
          driver.scenario(before, scenario.getAsJsonArray("steps"));
          passed++;
          System.out.println("ok   " + name);
        } catch (StepFailure e) {
          failed++;
          System.out.println("FAIL " + name + "\n     " + e.getMessage());
        }
      }
    } finally {
      channel.shutdownNow();
    }
    System.out.println("conformance java: " + passed + " passed, " + failed + " failed");
    System.exit(failed > 0 ? 1 : 0);
  }

  private void scenario(JsonArray before, JsonArray steps) throws StepFailure {
    Map<String, String> vars = new HashMap<>();
    vars.put("run", OutriderClient.newRequestId().substring(0, 12)); // fresh per scenario run
    run("before_each", before, vars);
    run("step", steps, vars);
  }

  private void run(String kind, JsonArray steps, Map<String, String> vars) throws StepFailure {
    for (int i = 0; i < steps.size(); i++) {
      JsonObject step = steps.get(i).getAsJsonObject();
      try {
        step(step, vars);
      } catch (StepFailure e) {
        String name = step.has("stream") ? step.get("stream").getAsString() : step.get("call").getAsString();
        throw new StepFailure(kind + " " + (i + 1) + " (" + name + "): " + e.getMessage());
      }
    }
  }

  private void step(JsonObject step, Map<String, String> vars) throws StepFailure {
    OutriderClient client = client(step.has("as") ? step.get("as") : defaultAs, vars);
    if (step.has("stream")) {
      streamStep(client, step, vars);
      return;
    }
    JsonElement request = substitute(step.has("request") ? step.get("request") : new JsonObject(), vars);
    JsonObject expect = substitute(step.has("expect") ? step.get("expect") : new JsonObject(), vars).getAsJsonObject();
    JsonElement response = null;
    JsonObject error = null;
    try {
      response = call(client, step.get("call").getAsString(), request);
    } catch (StatusRuntimeException e) {
      error = errorJson(e);
    }
    List<String> problems;
    if (expect.has("error")) {
      if (error == null) {
        throw new StepFailure("expected error " + expect.getAsJsonObject("error").get("code") + ", got response " + response);
      }
      problems = match(expect.get("error"), error, "error");
    } else {
      if (error != null) {
        throw new StepFailure("unexpected error " + error.get("code").getAsString() + ": " + error.get("message").getAsString());
      }
      problems = match(expect.has("response") ? expect.get("response") : new JsonObject(), response, "response");
    }
    if (!problems.isEmpty()) {
      throw new StepFailure(String.join("; ", problems));
    }
    if (step.has("capture")) {
      for (Map.Entry<String, JsonElement> c : step.getAsJsonObject("capture").entrySet()) {
        vars.put(c.getKey(), lookup(response, c.getValue().getAsString()));
      }
    }
  }

  /**
   * A {@code stream} step: opens the stream, sends every request in order, half-closes, reads every
   * answer until the stream ends, and matches the answers sorted by id and the stream's end.
   */
  private void streamStep(OutriderClient client, JsonObject step, Map<String, String> vars) throws StepFailure {
    if (step.has("capture")) {
      throw new StepFailure("capture is not supported on a stream step");
    }
    String name = step.get("stream").getAsString();
    if (!name.equals("SupervisorService.CheckActions")) {
      throw new StepFailure("unknown stream " + name);
    }
    List<CheckActionsRequest> requests = new ArrayList<>();
    JsonArray raw = step.has("requests") ? step.getAsJsonArray("requests") : new JsonArray();
    for (int i = 0; i < raw.size(); i++) {
      CheckActionsRequest.Builder b = CheckActionsRequest.newBuilder();
      try {
        JsonFormat.parser().merge(substitute(raw.get(i), vars).toString(), b);
      } catch (InvalidProtocolBufferException e) {
        throw new StepFailure("request " + (i + 1) + ": " + e.getMessage());
      }
      requests.add(b.build());
    }
    List<CheckActionsResponse> answers = new CopyOnWriteArrayList<>();
    CompletableFuture<Throwable> end = new CompletableFuture<>(); // null: ended OK
    StreamObserver<CheckActionsRequest> out = SupervisorServiceGrpc.newStub(client.channel())
        .withDeadlineAfter(30, TimeUnit.SECONDS)
        .checkActions(new StreamObserver<CheckActionsResponse>() {
          @Override
          public void onNext(CheckActionsResponse r) {
            answers.add(r);
          }

          @Override
          public void onError(Throwable t) {
            end.complete(t);
          }

          @Override
          public void onCompleted() {
            end.complete(null);
          }
        });
    for (CheckActionsRequest r : requests) {
      out.onNext(r); // after the stream ended, ignored: the end status tells how
    }
    out.onCompleted();
    Throwable failure;
    try {
      failure = end.get(35, TimeUnit.SECONDS);
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      throw new StepFailure("the stream did not end: " + e);
    }
    JsonArray responses = new JsonArray();
    List<CheckActionsResponse> sorted = new ArrayList<>(answers);
    sorted.sort(Comparator.comparing(CheckActionsResponse::getId, Long::compareUnsigned));
    for (CheckActionsResponse r : sorted) {
      try {
        responses.add(JsonParser.parseString(JsonFormat.printer().print(r)));
      } catch (InvalidProtocolBufferException e) {
        throw new StepFailure("response: " + e.getMessage());
      }
    }
    JsonObject expect = substitute(step.has("expect") ? step.get("expect") : new JsonObject(), vars).getAsJsonObject();
    List<String> problems = new ArrayList<>();
    StatusRuntimeException error = failure == null ? null : Status.fromThrowable(failure).asRuntimeException(Status.trailersFromThrowable(failure));
    if (expect.has("error")) {
      if (error == null) {
        throw new StepFailure("expected the stream to end with " + expect.getAsJsonObject("error").get("code")
            + ", it ended OK after " + responses);
      }
      problems.addAll(match(expect.get("error"), errorJson(error), "error"));
    } else if (error != null) {
      throw new StepFailure("the stream ended with " + error.getStatus().getCode() + ": " + error.getStatus().getDescription());
    }
    if (expect.has("responses")) {
      problems.addAll(match(expect.get("responses"), responses, "responses"));
    }
    if (!problems.isEmpty()) {
      throw new StepFailure(String.join("; ", problems));
    }
  }

  /** One client per credential, all on the one channel. */
  private OutriderClient client(JsonElement who, Map<String, String> vars) throws StepFailure {
    String token;
    if (who.isJsonObject()) {
      token = substitute(who.getAsJsonObject().get("bearer"), vars).getAsString();
    } else if ("anonymous".equals(who.getAsString())) {
      token = "";
    } else {
      token = tokens.get(who.getAsString());
      if (token == null || token.isEmpty()) {
        throw new StepFailure("no token for credential " + who);
      }
    }
    return clients.computeIfAbsent(token, t -> OutriderClient.builder().channel(channel).token(t).build());
  }

  @SuppressWarnings("unchecked")
  private static JsonElement call(OutriderClient client, String name, JsonElement request) throws StepFailure {
    String fullName = "outrider.v1." + name.replaceFirst("\\.", "/");
    MethodDescriptor<Message, Message> method = null;
    for (ServiceDescriptor service : SERVICES) {
      for (MethodDescriptor<?, ?> m : service.getMethods()) {
        if (m.getFullMethodName().equals(fullName)) {
          method = (MethodDescriptor<Message, Message>) m;
        }
      }
    }
    if (method == null || method.getType() != MethodDescriptor.MethodType.UNARY) {
      throw new StepFailure("unknown or streaming method " + name);
    }
    Message prototype =
        ((MethodDescriptor.PrototypeMarshaller<Message>) method.getRequestMarshaller()).getMessagePrototype();
    Message.Builder builder = prototype.newBuilderForType();
    try {
      JsonFormat.parser().merge(request.toString(), builder);
    } catch (InvalidProtocolBufferException e) {
      throw new StepFailure("request: " + e.getMessage());
    }
    Message response;
    if (name.equals("SupervisorService.CheckAction")) {
      response = client.checkAction((CheckActionRequest) builder.build());
    } else {
      response = ClientCalls.blockingUnaryCall(
          client.channel(), method, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), builder.build());
    }
    try {
      return JsonParser.parseString(JsonFormat.printer().print(response));
    } catch (InvalidProtocolBufferException e) {
      throw new StepFailure("response: " + e.getMessage());
    }
  }

  private static JsonObject errorJson(StatusRuntimeException e) {
    JsonObject out = new JsonObject();
    out.addProperty("code", e.getStatus().getCode().name());
    out.addProperty("message", e.getStatus().getDescription() == null ? "" : e.getStatus().getDescription());
    Optional<ErrorInfo> info = OutriderClient.errorInfo(e);
    out.addProperty("reason", info.map(ErrorInfo::getReason).orElse(""));
    out.addProperty("domain", info.map(ErrorInfo::getDomain).orElse(""));
    out.addProperty("field", info.map(i -> i.getMetadataOrDefault("field", "")).orElse(""));
    return out;
  }

  // ---- the matching rules (identical in every driver) -------------------------------------------

  static JsonElement substitute(JsonElement value, Map<String, String> vars) throws StepFailure {
    if (value.isJsonPrimitive() && value.getAsJsonPrimitive().isString()) {
      Matcher m = VARIABLE.matcher(value.getAsString());
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        String v = vars.get(m.group(1));
        if (v == null) {
          throw new StepFailure("unknown variable ${" + m.group(1) + "}");
        }
        m.appendReplacement(out, Matcher.quoteReplacement(v));
      }
      m.appendTail(out);
      return new JsonPrimitive(out.toString());
    }
    if (value.isJsonArray()) {
      JsonArray out = new JsonArray();
      for (JsonElement e : value.getAsJsonArray()) {
        out.add(substitute(e, vars));
      }
      return out;
    }
    if (value.isJsonObject()) {
      JsonObject out = new JsonObject();
      for (Map.Entry<String, JsonElement> e : value.getAsJsonObject().entrySet()) {
        out.add(e.getKey(), substitute(e.getValue(), vars));
      }
      return out;
    }
    return value;
  }

  /** Mismatches of {@code actual} (proto JSON, null when absent) against {@code expected}. */
  static List<String> match(JsonElement expected, JsonElement actual, String path) {
    List<String> out = new ArrayList<>();
    if (expected.isJsonObject()) {
      JsonObject want = expected.getAsJsonObject();
      if (want.size() == 1 && want.keySet().iterator().next().startsWith("$")) {
        String op = want.keySet().iterator().next();
        return matchOp(op, want.get(op).getAsString(), actual, path);
      }
      JsonElement got = actual == null ? new JsonObject() : actual;
      if (!got.isJsonObject()) {
        out.add(path + ": expected an object, got " + got);
        return out;
      }
      for (Map.Entry<String, JsonElement> e : want.entrySet()) {
        out.addAll(match(e.getValue(), got.getAsJsonObject().get(e.getKey()), path + "." + e.getKey()));
      }
      return out;
    }
    if (expected.isJsonArray()) {
      JsonArray want = expected.getAsJsonArray();
      JsonElement got = actual == null ? new JsonArray() : actual;
      if (!got.isJsonArray() || got.getAsJsonArray().size() != want.size()) {
        out.add(path + ": expected " + want.size() + " items, got " + got);
        return out;
      }
      for (int i = 0; i < want.size(); i++) {
        out.addAll(match(want.get(i), got.getAsJsonArray().get(i), path + "[" + i + "]"));
      }
      return out;
    }
    if (actual == null) {
      if (!isZero(expected)) {
        out.add(path + ": expected " + expected + ", got nothing");
      }
      return out;
    }
    if (!sameScalar(expected, actual)) {
      out.add(path + ": expected " + expected + ", got " + actual);
    }
    return out;
  }

  private static boolean isZero(JsonElement v) {
    if (v.isJsonNull()) {
      return true;
    }
    JsonPrimitive p = v.getAsJsonPrimitive();
    return p.isBoolean() ? !p.getAsBoolean() : p.isNumber() ? p.getAsDouble() == 0 : p.getAsString().isEmpty();
  }

  private static boolean sameScalar(JsonElement want, JsonElement got) {
    if (want.isJsonNull() || got.isJsonNull()) {
      return want.isJsonNull() && got.isJsonNull();
    }
    if (!want.isJsonPrimitive() || !got.isJsonPrimitive()) {
      return false;
    }
    JsonPrimitive w = want.getAsJsonPrimitive();
    JsonPrimitive g = got.getAsJsonPrimitive();
    if (w.isNumber() && g.isNumber()) {
      return w.getAsDouble() == g.getAsDouble();
    }
    return w.isBoolean() == g.isBoolean() && w.isString() == g.isString() && w.equals(g);
  }

  private static List<String> matchOp(String op, String arg, JsonElement actual, String path) {
    List<String> out = new ArrayList<>();
    if (actual != null && !(actual.isJsonPrimitive() && actual.getAsJsonPrimitive().isString())) {
      out.add(path + ": expected a string for " + op + ", got " + actual);
      return out;
    }
    String text = actual == null ? "" : actual.getAsString();
    boolean ok;
    if (op.equals("$contains")) {
      ok = text.contains(arg);
    } else if (op.equals("$matches")) {
      ok = Pattern.compile(arg).matcher(text).find();
    } else {
      out.add(path + ": unknown matcher " + op);
      return out;
    }
    if (!ok) {
      out.add(path + ": expected " + op + " " + new JsonPrimitive(arg) + ", got " + new JsonPrimitive(text));
    }
    return out;
  }

  private static String lookup(JsonElement doc, String dotted) throws StepFailure {
    JsonElement value = doc == null ? JsonNull.INSTANCE : doc;
    for (String part : dotted.split("\\.")) {
      if (value.isJsonArray() && part.matches("\\d+") && Integer.parseInt(part) < value.getAsJsonArray().size()) {
        value = value.getAsJsonArray().get(Integer.parseInt(part));
      } else if (value.isJsonObject() && value.getAsJsonObject().has(part)) {
        value = value.getAsJsonObject().get(part);
      } else {
        throw new StepFailure("capture: the response has no " + dotted);
      }
    }
    if (value.isJsonPrimitive() && !value.getAsJsonPrimitive().isBoolean()) {
      JsonPrimitive p = value.getAsJsonPrimitive();
      if (p.isNumber()) {
        double d = p.getAsDouble();
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
      }
      return p.getAsString();
    }
    throw new StepFailure("capture: " + dotted + " is not a string or number");
  }
}
