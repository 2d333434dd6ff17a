#!/usr/bin/env bash
# Installs the local `buf generate` plugins into .outrider-tools/bin at the versions the clients pin,
# each from its own registry: protoc-gen-go and protoc-gen-go-grpc from the Go module proxy, protoc and
# protoc-gen-grpc-java from Maven Central (protoc only runs buf's built-in `java` plugin).
# (protoc-gen-grpc-java 1.84+ has no linux-x86_64 file on Maven Central today: grpc.version stays 1.83.0.)
# protoc-gen-es comes with proto/package.json. A tool is fetched again only when its pinned version changes.
#   scripts/codegen-tools.sh            (prints nothing when everything is in place)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.outrider-tools/bin"
mkdir -p "$bin"

# One source of truth per version: the runtime each client builds against.
pb_go=$(awk '$1 == "google.golang.org/protobuf" { print $2 }' "$root/clients/go/go.mod")
grpc_go_plugin=v1.6.2 # google.golang.org/grpc/cmd/protoc-gen-go-grpc (its own module)
prop() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" "$root/clients/java/pom.xml" | head -n1; }
pb_java=$(prop protobuf.version)
grpc_java=$(prop grpc.version)
dep_plugin=$(prop dependency-plugin.version)
[ -n "$pb_go" ] && [ -n "$pb_java" ] && [ -n "$grpc_java" ] && [ -n "$dep_plugin" ] || {
  echo "codegen-tools.sh: could not read the pinned versions from clients/go/go.mod and clients/java/pom.xml" >&2
  exit 1
}

fresh() { [ -x "$bin/$1" ] && [ "$(cat "$bin/$1.version" 2>/dev/null)" = "$2" ]; }
stamp() { echo "$2" >"$bin/$1.version"; }

go_tool() { # name package version
  fresh "$1" "$3" && return 0
  echo "codegen-tools.sh: go install $2@$3" >&2
  GOBIN="$bin" GOFLAGS=-mod=mod go install "$2@$3"
  stamp "$1" "$3"
}

case "$(uname -m)" in
  x86_64 | amd64) arch=x86_64 ;;
  aarch64 | arm64) arch=aarch_64 ;;
  *) echo "codegen-tools.sh: no protoc build on Maven Central for $(uname -m)" >&2; exit 1 ;;
esac
case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=osx ;;
  *) echo "codegen-tools.sh: unsupported OS $(uname -s)" >&2; exit 1 ;;
esac

maven_exe() { # name group:artifact version
  fresh "$1" "$3" && return 0
  echo "codegen-tools.sh: fetching $2:$3:exe:$os-$arch from Maven Central" >&2
  local tmp
  tmp=$(mktemp -d)
  local out
  if ! out=$(mvn -q -B -Dstyle.color=never "org.apache.maven.plugins:maven-dependency-plugin:$dep_plugin:copy" \
    -Dartifact="$2:$3:exe:$os-$arch" -DoutputDirectory="$tmp" -Dmdep.stripVersion=true 2>&1); then
    echo "$out" >&2
    exit 1
  fi
  install -m 0755 "$tmp"/*.exe "$bin/$1"
  rm -rf "$tmp"
  stamp "$1" "$3"
}

go_tool protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go "$pb_go"
go_tool protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc "$grpc_go_plugin"
maven_exe protoc com.google.protobuf:protoc "$pb_java"
maven_exe protoc-gen-grpc-java io.grpc:protoc-gen-grpc-java "$grpc_java"
