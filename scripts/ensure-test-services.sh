#!/usr/bin/env bash
# What the test suite needs from the system (C26), made sure of by the test command itself (`npm test`
# runs this before jest; .ci/run runs `npm test`):
#   - Debian's `chromium` (the browser test, test/e2e), `nats-server` (cross-process tests start their
#     own on free ports), `redis-server` (the shared-cache and rate-limit tests, at 127.0.0.1:6379) and
#     PostgreSQL (the store tests, at 127.0.0.1:5432);
#   - installed from Debian's packages when missing and this user is root (apt-get), and Redis and
#     PostgreSQL started when they do not answer.
# When something cannot be had, it says what and how to get it, and the run goes on: the tests that need
# it fail saying so, the others run. Set TEST_SERVICES_STRICT=1 to stop here instead.
set -uo pipefail

REDIS_HOST=127.0.0.1
REDIS_PORT=6379
PG_HOST=127.0.0.1
PG_PORT=5432

say() { printf '[test services] %s\n' "$*"; }
problems=()
problem() { problems+=("$*"); say "PROBLEM: $*"; }

is_root() { [ "$(id -u)" = "0" ]; }
have() { command -v "$1" >/dev/null 2>&1; }

# A TCP port answering on 127.0.0.1 (bash's /dev/tcp; no other tool needed).
port_open() { (exec 3<>"/dev/tcp/$1/$2") >/dev/null 2>&1; }

chromium_path() {
  if [ -n "${CHROMIUM_PATH:-}" ]; then [ -x "$CHROMIUM_PATH" ] && echo "$CHROMIUM_PATH"; return; fi
  [ -x /usr/bin/chromium ] && echo /usr/bin/chromium
}
nats_path() {
  for p in /usr/sbin/nats-server /usr/bin/nats-server /usr/local/bin/nats-server; do [ -x "$p" ] && { echo "$p"; return; }; done
  command -v nats-server 2>/dev/null
}
pg_installed() { have pg_ctlcluster || have pg_ctl || ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; }

# ---- packages --------------------------------------------------------------------------------------
missing=()
[ -n "$(chromium_path)" ] || missing+=(chromium)
[ -n "$(nats_path)" ] || missing+=(nats-server)
have redis-server || missing+=(redis-server)
# PostgreSQL: only when nothing answers at its port (a server elsewhere on this machine will do).
if ! port_open "$PG_HOST" "$PG_PORT" && ! pg_installed; then missing+=(postgresql); fi

if [ ${#missing[@]} -gt 0 ]; then
  if ! is_root; then
    say "missing: ${missing[*]}; not root, so not installing them (as root: apt-get install -y ${missing[*]})"
  elif ! have apt-get; then
    problem "missing: ${missing[*]}, and this system has no apt-get: install them with its package manager."
  else
    say "installing from Debian's packages: ${missing[*]}"
    apt_opts=(-o DPkg::Lock::Timeout=300 -o Acquire::Retries=3)
    export DEBIAN_FRONTEND=noninteractive
    if apt-get "${apt_opts[@]}" update -qq && apt-get "${apt_opts[@]}" install -y -qq "${missing[@]}" >/tmp/ensure-test-services.apt.log 2>&1; then
      say "installed: ${missing[*]}"
    else
      tail -n 20 /tmp/ensure-test-services.apt.log 2>/dev/null
      problem "apt-get could not install ${missing[*]} (log: /tmp/ensure-test-services.apt.log)."
    fi
  fi
fi

[ -n "$(chromium_path)" ] || problem "no Chromium at ${CHROMIUM_PATH:-/usr/bin/chromium}: the browser test (test/e2e) cannot run. As root: apt-get install -y chromium, or set CHROMIUM_PATH."
[ -n "$(nats_path)" ] || problem "no nats-server: the cross-process tests cannot run. As root: apt-get install -y nats-server."

# ---- Redis -----------------------------------------------------------------------------------------
if port_open "$REDIS_HOST" "$REDIS_PORT"; then
  :
elif have redis-server; then
  say "starting redis-server on $REDIS_HOST:$REDIS_PORT (nothing kept on disk)"
  redis_dir=/var/lib/redis
  [ -d "$redis_dir" ] && [ -w "$redis_dir" ] || redis_dir=$(mktemp -d)
  redis-server --daemonize yes --bind "$REDIS_HOST" --port "$REDIS_PORT" --save "" --appendonly no --dir "$redis_dir" >/dev/null 2>&1
  for _ in $(seq 1 50); do port_open "$REDIS_HOST" "$REDIS_PORT" && break; sleep 0.1; done
  port_open "$REDIS_HOST" "$REDIS_PORT" || problem "redis-server did not start on $REDIS_HOST:$REDIS_PORT: the Redis tests will fail."
else
  problem "no Redis at $REDIS_HOST:$REDIS_PORT and no redis-server to start: the Redis tests will fail. As root: apt-get install -y redis-server."
fi

# ---- PostgreSQL ------------------------------------------------------------------------------------
if port_open "$PG_HOST" "$PG_PORT"; then
  :
elif have pg_ctlcluster && [ -d /etc/postgresql ] && [ -n "$(ls /etc/postgresql 2>/dev/null)" ]; then
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  if is_root || [ "$(id -un)" = "postgres" ]; then
    say "starting PostgreSQL $version (cluster main)"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start >/dev/null 2>&1
    for _ in $(seq 1 100); do port_open "$PG_HOST" "$PG_PORT" && break; sleep 0.1; done
  fi
  port_open "$PG_HOST" "$PG_PORT" || problem "PostgreSQL does not answer at $PG_HOST:$PG_PORT. Start it (as root: pg_ctlcluster --skip-systemctl-redirect $version main start): the PostgreSQL tests will fail."
else
  problem "no PostgreSQL at $PG_HOST:$PG_PORT and no cluster to start: the PostgreSQL tests will fail. As root: apt-get install -y postgresql."
fi

if [ ${#problems[@]} -eq 0 ]; then
  say "ready: chromium, nats-server, Redis at $REDIS_HOST:$REDIS_PORT, PostgreSQL at $PG_HOST:$PG_PORT"
  exit 0
fi
say "${#problems[@]} problem(s) above; the tests that need what is missing will fail saying so."
[ "${TEST_SERVICES_STRICT:-0}" = "1" ] && exit 1
exit 0
