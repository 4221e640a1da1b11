#!/bin/sh
# install_uninstall.sh - what a site admin follows after `make install`
# (doc/slurm.md "Install", doc/infer.md) is there, and `make uninstall`
# takes all of it away again. Into a scratch DESTDIR (tests/testinstall.sh):
#   - the examples the docs name under DOCDIR/examples (slurm/, slurm-mps/,
#     power.conf, slo-spot-watch.service) and the man pages they cite;
#   - with the default prefix /usr/local, every /usr/local path named in the
#     installed slurm.conf.example, plugstack.conf.example and
#     slo-spot-watch.service exists in the install (the programs and the
#     plugin only when the build has them);
#   - `make uninstall` leaves no file and no directory of the package
#     (pkglibdir, DOCDIR, SYSCONFDIR/slo, the Python package) but an edited
#     site.json and the admin's power.conf beside it, with their
#     directories; shared directories such as bin/ stay, as automake
#     leaves them.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"
. "$SLO_SRCDIR/tests/testinstall.sh"

d=$tmp/inst
install_tmp "$d" || exit 1
docdir=$(find "$d" -type d -path '*/share/doc/slo-kernel' | head -n 1)
if [ -n "$docdir" ]; then ok "DOCDIR installed"; else notok "no share/doc/slo-kernel under $d"; fi

for f in slurm/plugstack.conf.example slurm/job_submit.lua slurm/slurm.conf.example \
    slurm/gres.conf.example slurm/catalog.json slurm/testnet.json \
    slurm-mps/slurm.conf slurm-mps/gres.conf power.conf slo-spot-watch.service; do
    if [ -f "$docdir/examples/$f" ]; then ok "DOCDIR/examples/$f"; else notok "DOCDIR/examples/$f missing"; fi
done
for m in man1/slo.1 man1/slo-profile-train.1 man3/libslo.3 man8/spank_slo.8 man8/slo-power.8 \
    man8/slo-requeue.8 man8/slo-spot-watch.8; do
    if [ -f "$inst_mandir/$m" ]; then ok "man $m"; else notok "man $m missing"; fi
done

# The examples hard-code the default prefix: check them only when it is the
# configured one (make distcheck installs elsewhere).
if [ "$SLO_LIBDIR" = /usr/local/lib ]; then
    built_slurm=no
    [ -e "$SLO_BUILDDIR/power/slo-requeue" ] && built_slurm=yes
    for f in slurm/slurm.conf.example slurm/plugstack.conf.example slo-spot-watch.service; do
        grep -v '^#' "$docdir/examples/$f" | grep -o '/usr/local/[A-Za-z0-9._/-]*' | sort -u >"$tmp/paths"
        while IFS= read -r p; do
            case $p in
            */sbin/slo-*|*/slo-kernel/spank_slo.so) [ $built_slurm = yes ] || continue ;;
            esac
            if [ -e "$d$p" ]; then ok "$f names $p: installed"; else notok "$f names $p: not installed"; fi
        done <"$tmp/paths"
    done
fi

# The package's own directories, as install made them (DESTDIR is fresh):
# pkglibdir, DOCDIR, SYSCONFDIR/slo and the Python package, each with its
# subdirectories. Paths are compared, not names: make distcheck's prefix
# itself has "slo" in it.
etcslo=
site=$(find "$d" -path '*/slo/catalogs/site.json' | head -n 1)
[ -n "$site" ] && etcslo=${site%/catalogs/site.json}
pydir=$(find "$d" -type d -path '*-packages/slo' | head -n 1)
for p in "$d$SLO_LIBDIR/slo-kernel" "$docdir" "$etcslo" "$pydir"; do
    [ -n "$p" ] && [ -d "$p" ] && find "$p" -type d
done | sort >"$tmp/pkgdirs"
if [ "$(grep -c . "$tmp/pkgdirs")" -ge 8 ]; then ok "the package's $(grep -c . "$tmp/pkgdirs") directories installed"
else cp "$tmp/pkgdirs" "$tmp/err"; notok "the package's directories: fewer than 8"; fi

# The admin's own files: an edited site.json and a power.conf put beside it
# (doc/slurm.md, Install) must survive, with their directories.
if [ -f "$site" ]; then
    ok "site.json installed"
    echo ' ' >>"$site"
    echo 'provider=local' >"$etcslo/power.conf"
    keep=$(printf '%s\n' "$site" "$etcslo/power.conf" | sort)
    keepdirs=$(printf '%s\n' "${site%/site.json}" "$etcslo" | sort)
else
    notok "no SYSCONFDIR/slo/catalogs/site.json under $d"; keep=; keepdirs=
fi

_lock=
command -v flock >/dev/null 2>&1 && _lock="flock $SLO_BUILDDIR/.install-test.lock"
if ! $_lock ${SLO_MAKE:-make} -C "$SLO_BUILDDIR" -s uninstall DESTDIR="$d" >"$tmp/out" 2>"$tmp/err"; then
    notok "make uninstall DESTDIR=$d failed"
else
    left=$(find "$d" ! -type d | sort)
    if [ "$left" = "$keep" ]; then
        ok "make uninstall removed every file but the admin's edited site.json and power.conf"
    else
        : >"$tmp/out"; printf 'left:\n%s\nexpected:\n%s\n' "$left" "$keep" >"$tmp/err"
        notok "make uninstall left other files"
    fi
fi
left=$(while IFS= read -r p; do [ -d "$p" ] && echo "$p"; done <"$tmp/pkgdirs" | sort)
if [ "$left" = "$keepdirs" ]; then
    ok "make uninstall removed the package's directories but those of the admin's files"
else
    : >"$tmp/out"; printf 'left:\n%s\nexpected:\n%s\n' "$left" "$keepdirs" >"$tmp/err"
    notok "make uninstall left the package's directories"
fi
finish
