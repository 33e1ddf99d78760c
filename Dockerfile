# syntax=docker/dockerfile:1
# answerdesk: one static binary on a distroless base, running as a non-root user, with the
# database on the /data volume. Build:  docker build -t answerdesk .
# Run:    docker run -d -p 8080:8080 -v answerdesk-data:/data \
#           -e ANSWERDESK_BASE_URL=https://answerdesk.example.com answerdesk
# Production guide: content/data/docs/deployment.md (served at /docs/deployment).

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Modules first, so a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# The SQLite driver is pure Go: CGO off gives a fully static binary.
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/answerdesk ./cmd/answerdesk \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/answerdesk /usr/local/bin/answerdesk
# The volume's mount point belongs to the nonroot user (65532), so a fresh named volume is
# writable by the server.
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
WORKDIR /data
ENV ANSWERDESK_ADDR=:8080 \
    ANSWERDESK_DB=/data/answerdesk.db \
    ANSWERDESK_LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 8080
# No shell or curl in the image: the binary asks its own /readyz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["/usr/local/bin/answerdesk", "healthcheck", "--url", "http://127.0.0.1:8080/readyz"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/answerdesk"]
CMD ["serve"]
