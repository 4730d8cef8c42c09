# device-env.sh - build fek on a machine that cannot reach Debian's mirrors
# (the GPU machine of the device tool): unpack the Debian packages carried
# in .debs/ (made here with `apt-get download`, see bench/RESULTS.md) into
# /tmp/fek-debroot and point the compiler and loader at them.  Source it:
#   . scripts/device-env.sh
R=/tmp/fek-debroot
mkdir -p "$R"
for f in .debs/*.deb; do dpkg -x "$f" "$R"; done
A=x86_64-linux-gnu
export CPATH="$R/usr/include:$R/usr/include/$A/openblas-pthread${CPATH:+:$CPATH}"
export LIBRARY_PATH="$R/usr/lib/$A:$R/usr/lib/$A/openblas-pthread${LIBRARY_PATH:+:$LIBRARY_PATH}"
export LD_LIBRARY_PATH="$R/usr/lib/$A:$R/usr/lib/$A/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$R/usr/bin:$PATH"
touch .deps-build	# the packages are here; do not run apt-get
