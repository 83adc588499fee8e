# A stand-in for the official swift:6.3-bookworm image, for a machine that cannot pull it (Deploy/make-base-images
# builds it from a context holding usr/, the toolchain, and swift-packages/, a package mirror or nothing): Debian 12
# with the official image's build packages and the toolchain under /usr, as there.
FROM debian:bookworm-slim
RUN apt-get -q update \
 && DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
      binutils git gnupg2 libc6-dev libcurl4-openssl-dev libedit2 libgcc-12-dev libpython3-dev libsqlite3-0 \
      libstdc++-12-dev libxml2-dev libncurses-dev libz3-dev pkg-config tzdata zlib1g-dev unzip ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*
COPY usr/ /usr/
COPY swift-packages/ /opt/swift-packages/
# Only when the mirror holds packages: github.com's URLs resolve to it, as on the machine.
RUN if [ -n "$(ls /opt/swift-packages)" ]; then \
      git config --system url./opt/swift-packages/.insteadOf https://github.com/; \
    else rmdir /opt/swift-packages; fi \
 && swift --version
CMD ["bash"]
