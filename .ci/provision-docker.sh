#!/usr/bin/env bash
# Makes a Docker engine and the local base image `waiver-base:bookworm` available, so that
# the container tests can build and run the action's image on a machine that reaches only
# Debian's archive and PyPI (no Docker Hub), and installs Debian's `docker-registry`, which
# the tests start on a loopback port to pull the action's image by digest (the engine
# treats 127.0.0.0/8 as an insecure registry by default). Idempotent: a second run only
# checks. The base is debootstrapped from the archive the host's apt uses.
#
# WAIVER_BASE_IMAGE=waiver-base:check builds the base into that tag instead, to check a
# change of this script without touching the base the tests use.
#
# Always /usr/bin/docker: Debian's client. Another `docker` earlier on PATH may lack the
# builder this engine speaks to.
set -euo pipefail

readonly DOCKER=/usr/bin/docker
readonly BASE_IMAGE=${WAIVER_BASE_IMAGE:-waiver-base:bookworm}
readonly SUITE=bookworm
readonly DOCKERD_LOG=/var/log/waiver-dockerd.log
readonly DOCKERD_WAIT_SECONDS=60

say() { printf 'provision-docker: %s\n' "$*"; }

daemon_answers() { [[ -x $DOCKER ]] && "$DOCKER" info >/dev/null 2>&1; }

install_missing_packages() {
    local missing=()
    [[ -x $DOCKER ]] || missing+=(docker.io)
    command -v debootstrap >/dev/null || missing+=(debootstrap)
    [[ -x /usr/bin/docker-registry ]] || missing+=(docker-registry)
    if ((${#missing[@]} == 0)); then
        return
    fi
    say "installing ${missing[*]} from Debian"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The state letter of a process (R, S, Z, ...), empty when there is none.
process_state() { sed -n 's/^.*) \(.\).*$/\1/p' "/proc/$1/stat" 2>/dev/null || true; }

process_alive() {
    local state
    state=$(process_state "$1")
    [[ -n $state && $state != Z ]]
}

# An engine that was killed leaves pid files behind. A pid that is gone or a zombie still
# in /proc makes a new dockerd refuse to start, or wait for a containerd that is dead.
remove_stale_pid_files() {
    local pid_file
    for pid_file in /var/run/docker.pid /var/run/docker/containerd/containerd.pid; do
        if [[ -s $pid_file ]] && ! process_alive "$(<"$pid_file")"; then
            say "removing the stale $pid_file"
            rm -f "$pid_file"
        fi
    done
}

start_dockerd() {
    local dockerd_pid
    remove_stale_pid_files
    if [[ -s /var/run/docker.pid ]]; then
        dockerd_pid=$(</var/run/docker.pid)
        say "waiting for the dockerd that is already starting (pid $dockerd_pid)"
    else
        say "starting dockerd (log: $DOCKERD_LOG)"
        # setsid: the engine must outlive the shell that started it (tests run afterwards).
        setsid /usr/sbin/dockerd >>"$DOCKERD_LOG" 2>&1 </dev/null &
        dockerd_pid=$!
    fi
    local started=$SECONDS
    until daemon_answers; do
        if ! process_alive "$dockerd_pid" || ((SECONDS - started >= DOCKERD_WAIT_SECONDS)); then
            say "dockerd is not answering after $((SECONDS - started))s; last lines of $DOCKERD_LOG:"
            tail -n 20 "$DOCKERD_LOG" >&2
            exit 1
        fi
        sleep 1
    done
    say "dockerd answers after $((SECONDS - started))s"
}

# The archive of the release suite that the host's apt uses, as apt itself reads its
# sources (sources.list and sources.list.d, one-line or deb822, with options or several
# URIs): debootstrap then goes through the mirror this machine is allowed to reach. A host
# whose apt has no source of the suite (another distribution) gets Debian's redirector.
debian_mirror() {
    local uri
    # shellcheck disable=SC2016 # apt's format fields, not shell expansions
    uri=$(apt-get indextargets --no-release-info --format '$(REPO_URI) $(RELEASE) $(TARGET_OF)' \
        2>/dev/null | awk -v suite="$SUITE" '$2 == suite && $3 == "deb" { print $1; exit }' || true)
    if [[ -z $uri ]]; then
        uri=http://deb.debian.org/debian
        say "apt has no source of $SUITE here; debootstrap uses $uri" >&2
    fi
    printf '%s\n' "$uri"
}

# The proxy the host's apt goes through, for debootstrap's downloads too, unless the
# environment names one.
carry_apt_proxy() {
    local http_proxy_of_apt=""
    [[ -z ${http_proxy:-} ]] || return 0
    eval "$(apt-config shell http_proxy_of_apt Acquire::http::Proxy 2>/dev/null)"
    if [[ -n $http_proxy_of_apt ]]; then
        say "debootstrap goes through apt's proxy $http_proxy_of_apt"
        export http_proxy=$http_proxy_of_apt
    fi
}

# pip inside `docker build` must reach the index the host uses. Debian's pip trusts the
# system CA bundle (which now holds the host's extra CAs); only an http(s) index-url that
# the host sets needs carrying over.
carry_pip_index() {
    local rootfs=$1 index_url
    index_url=${PIP_INDEX_URL:-$(python3 -m pip config get global.index-url 2>/dev/null || true)}
    if [[ $index_url == http://* || $index_url == https://* ]]; then
        say "pip in the image will use the host's index $index_url"
        printf '[global]\nindex-url = %s\n' "$index_url" >"$rootfs/etc/pip.conf"
    fi
}

rootfs=""
# --one-file-system: a failed debootstrap may leave proc or sys mounted inside.
remove_rootfs() { [[ -z $rootfs ]] || rm -rf --one-file-system "$rootfs" "$rootfs.log"; }

build_base_image() {
    local mirror
    mirror=$(debian_mirror)
    carry_apt_proxy
    rootfs=$(mktemp -d /var/tmp/waiver-base.XXXXXX)
    trap remove_rootfs EXIT
    say "debootstrap $SUITE from $mirror into $rootfs"
    debootstrap --variant=minbase \
        --include=python3,python3-pip,python3-venv,ca-certificates \
        "$SUITE" "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || {
        tail -n 30 "$rootfs.log" >&2
        exit 1
    }
    if compgen -G '/usr/local/share/ca-certificates/*' >/dev/null; then
        say "adding the host's extra CA certificates"
        cp -r /usr/local/share/ca-certificates/. "$rootfs/usr/local/share/ca-certificates/"
        chroot "$rootfs" update-ca-certificates >>"$rootfs.log" 2>&1 || {
            tail -n 30 "$rootfs.log" >&2
            exit 1
        }
    fi
    carry_pip_index "$rootfs"
    rm -f "$rootfs"/usr/lib/python3*/EXTERNALLY-MANAGED
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    tar -C "$rootfs" -c . | "$DOCKER" import - "$BASE_IMAGE" >/dev/null
    say "imported $BASE_IMAGE ($("$DOCKER" image inspect -f '{{.Size}}' "$BASE_IMAGE") bytes)"
}

main() {
    install_missing_packages
    if daemon_answers; then
        say "Docker engine answers"
    else
        start_dockerd
    fi
    if "$DOCKER" image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
        say "$BASE_IMAGE already present"
    else
        build_base_image
    fi
}

# Sourced (by the tests), it only defines its functions.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    main "$@"
fi
