# testinstall.sh - sourced by the tests that check what `make install` ships
# (tests/exports.sh, tests/api_examples.sh): install_tmp installs the build
# tree into a scratch DESTDIR and points pkg-config at it.
#
# install_tmp DIR: `make install DESTDIR=DIR` of $SLO_BUILDDIR (make check
# sets it), serialised with flock when there is one (two tests installing at
# once from one build tree could race in libtool's relinking). Sets
#   inst_libdir, inst_includedir, inst_mandir  the installed directories
#                                              (configured path under DIR);
#   PKG_CONFIG_PATH                            the installed .pc files first,
#                                              rewritten for DIR (see below).
# Returns nonzero, with make's output on stdout, if the install fails.
#
# The installed .pc files name the configured prefix; PKG_CONFIG_SYSROOT_DIR
# would prefix every package's paths with DIR, also those of jansson and
# Open MPI (ompi-c), so instead the absolute prefix/exec_prefix/libdir/
# includedir lines of the installed copies get DIR in front.
install_tmp() {
    _d=$1
    : "${SLO_BUILDDIR:?SLO_BUILDDIR must name the build tree (make check sets it)}"
    : "${SLO_LIBDIR:?SLO_LIBDIR must name the configured libdir (make check sets it)}"
    : "${SLO_INCLUDEDIR:?SLO_INCLUDEDIR must name the configured includedir (make check sets it)}"
    : "${SLO_MANDIR:?SLO_MANDIR must name the configured mandir (make check sets it)}"
    _lock=
    command -v flock >/dev/null 2>&1 && _lock="flock $SLO_BUILDDIR/.install-test.lock"
    if ! $_lock "${SLO_MAKE:-make}" -C "$SLO_BUILDDIR" install DESTDIR="$_d" >"$_d.log" 2>&1; then
        echo "make install DESTDIR=$_d failed:"
        sed 's/^/#   /' "$_d.log"
        return 1
    fi
    inst_libdir=$_d$SLO_LIBDIR
    inst_includedir=$_d$SLO_INCLUDEDIR
    inst_mandir=$_d$SLO_MANDIR
    for _pc in "$inst_libdir"/pkgconfig/*.pc; do
        [ -f "$_pc" ] || continue
        sed -E "s#^(prefix|exec_prefix|libdir|includedir)=/#\\1=$_d/#" "$_pc" >"$_pc.tmp" &&
            mv "$_pc.tmp" "$_pc"
    done
    PKG_CONFIG_PATH=$inst_libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    export PKG_CONFIG_PATH
}
