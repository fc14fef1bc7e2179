# The container in which the GitHub Action runs `waiver gate`.
# BASE is pinned by digest; CI builds on a local Debian base with --build-arg BASE=....
ARG BASE=python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea
FROM ${BASE}

# The root filesystem is mounted read-only at run time: nothing may want to write bytecode.
# The working directory is the change's checkout: PYTHONSAFEPATH (`-P` for every python3
# here) keeps it off sys.path, so a `waiver/` package the change commits never stands in for
# the one in /app, however the image is run (by hand with `--entrypoint python3` too).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONSAFEPATH=1 \
    PYTHONPATH=/app \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# No package manager runs here: the trusted revision's blobs are read by dulwich (a pinned
# Python dependency), so a build from a cached base costs one pip install of wheels.
COPY requirements/runtime.txt /tmp/runtime.txt
# pip compiles bytecode one file at a time; compileall on every core does the same work in
# a fraction of the time, which is most of a fallback build from a cached base.
RUN python3 -m pip install --no-cache-dir --root-user-action=ignore --no-compile \
        --require-hashes --no-deps -r /tmp/runtime.txt \
    && python3 -m compileall -q -j 0 \
        "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
    && rm /tmp/runtime.txt \
    && useradd --uid 10001 --no-create-home --shell /usr/sbin/nologin waiver

COPY waiver/ /app/waiver/
COPY entrypoint.py /app/entrypoint.py
# Compiled once here, because the running container cannot write next to the sources.
RUN python3 -m compileall -q /app

USER 10001
ENTRYPOINT ["python3", "/app/entrypoint.py"]
