# The project image for users with a registry and Docker/BuildKit; scripts/image.sh builds the same
# image without either (see docs/install.md, "The project image"). Both read deploy/image/: the Debian
# packages of the base, the JRE's modules and the launcher.
#   docker build -t registry.example.com/gpu-operator:0.1.0-SNAPSHOT .
FROM debian:bookworm AS build
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      openjdk-17-jdk-headless maven openssl ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests -Dspotless.check.skip=true package -pl cli -am
RUN jlink --add-modules "$(grep -v '^#' deploy/image/jre-modules | xargs | tr ' ' ',')" \
      --strip-debug --no-man-pages --no-header-files --compress=2 --generate-cds-archive --output /jre \
    && rm -f /jre/lib/security/cacerts && cp /etc/ssl/certs/java/cacerts /jre/lib/security/cacerts

FROM debian:bookworm AS base
COPY deploy/image/packages /packages
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends mmdebstrap \
    && mkdir /rootfs \
    && mmdebstrap --variant=extract --include="$(grep -v '^#' /packages | xargs | tr ' ' ',')" bookworm - \
       | tar -x -C /rootfs \
    && find /rootfs/dev -mindepth 1 -delete \
    && rm -rf /rootfs/usr/share/doc /rootfs/usr/share/man /rootfs/usr/share/info /rootfs/usr/share/lintian \
       /rootfs/usr/share/locale /rootfs/usr/lib/x86_64-linux-gnu/gconv \
    && mkdir -p /rootfs/home/nonroot /rootfs/opt/gpu-operator/bin && chown 65532:65532 /rootfs/home/nonroot \
    && printf 'root:x:0:0:root:/root:/bin/sh\nnonroot:x:65532:65532:nonroot:/home/nonroot:/usr/sbin/nologin\n' > /rootfs/etc/passwd \
    && printf 'root:x:0:\nnonroot:x:65532:\n' > /rootfs/etc/group

# The class-data-sharing archive (see scripts/image.sh): dumped by the image's JRE against the jar
# at its path in the image; the copies below keep the jar's modification time, which the JVM checks
# (in whole seconds, and a layer's tar rounds to the nearest: hence the jar's whole second first).
FROM debian:bookworm AS cds
COPY --from=build /jre /opt/java
COPY --from=build /src/cli/target/gpu-operator.jar /opt/gpu-operator/gpu-operator.jar
COPY deploy/image/classes.lst /tmp/classes.lst
RUN touch -d "@$(stat -c %Y /opt/gpu-operator/gpu-operator.jar)" /opt/gpu-operator/gpu-operator.jar \
    && /opt/java/bin/java -Xshare:dump -XX:SharedClassListFile=/tmp/classes.lst \
      -XX:SharedArchiveFile=/opt/gpu-operator/gpu-operator.jsa -cp /opt/gpu-operator/gpu-operator.jar \
      > /tmp/cds.log 2>&1 || (cat /tmp/cds.log; exit 1) \
    && chmod 0644 /opt/gpu-operator/gpu-operator.jsa

FROM scratch
COPY --from=base /rootfs/ /
COPY --from=build /jre /opt/java
COPY --from=cds /opt/gpu-operator/gpu-operator.jar /opt/gpu-operator/gpu-operator.jsa /opt/gpu-operator/
COPY deploy/image/gpu-operator /opt/gpu-operator/bin/gpu-operator
ENV PATH=/opt/gpu-operator/bin:/opt/java/bin:/usr/sbin:/usr/bin:/sbin:/bin JAVA_HOME=/opt/java
LABEL org.opencontainers.image.title=gpu-operator org.opencontainers.image.licenses=Apache-2.0
USER 65532:65532
WORKDIR /home/nonroot
ENTRYPOINT ["/opt/gpu-operator/bin/gpu-operator"]
