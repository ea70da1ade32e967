# SPDX-License-Identifier: BSD-3-Clause
# hpm's Spack recipe (packaging/spack: `spack repo add packaging/spack`).
# hpm has no public release to download: build a checkout with
#   spack develop --path /path/to/hpm hpm@=0.1.0
#   spack add hpm@=0.1.0 && spack install
# This recipe is written to Spack's conventions but has not been run: the
# machines hpm is built and tested on have no Spack.

from spack.package import *


class Hpm(CMakePackage):
    """Hardware performance monitoring, with or without a PMU: a virtual PMU
    (a Valgrind tool modeling the node: caches, TLBs, branch predictor,
    timing, the Blue Gene/P UPC counter unit) that counts unmodified x86-64
    programs, perf_event where the machine has a PMU, libhpm and a PAPI 7
    compatible libpapi over both."""

    license("BSD-3-Clause AND GPL-2.0-or-later")

    version("0.1.0")

    variant("mpi", default=True, description="Build libhpm-mpi (an MPI job's network events)")
    variant("man", default=True, description="Write the man pages (help2man, scdoc)")

    # the virtual PMU is an amd64 Linux Valgrind tool
    conflicts("platform=darwin")
    conflicts("target=aarch64:")

    depends_on("c", type="build")
    depends_on("cmake@3.20:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("help2man", type="build", when="+man")
    depends_on("scdoc", type="build", when="+man")

    # the tool links this Valgrind's coregrind and runs with its preload
    # object: the same installation at build and run time
    depends_on("valgrind", type=("build", "link", "run"))
    depends_on("libpfm4")
    depends_on("elfutils")
    depends_on("jansson")
    depends_on("libmicrohttpd")
    depends_on("mpi", when="+mpi")

    def cmake_args(self):
        valgrind = self.spec["valgrind"].prefix
        args = [
            # warnings are errors only where the compiler is known (hpm's CI)
            self.define("HPM_WERROR", False),
            self.define("HPM_BENCH", False),
            # Valgrind's tool kit, in its own prefix
            self.define("HPM_VALGRIND_INCLUDE_DIR", valgrind.include.valgrind),
            self.define("HPM_VG_COREGRIND", join_path(valgrind.lib.valgrind,
                                                      "libcoregrind-amd64-linux.a")),
            self.define("HPM_VG_VEX", join_path(valgrind.lib.valgrind, "libvex-amd64-linux.a")),
            self.define("HPM_VG_GCCSUP", join_path(valgrind.lib.valgrind,
                                                   "libgcc-sup-amd64-linux.a")),
            self.define("HPM_VALGRIND_LIBEXEC", valgrind.libexec.valgrind),
            self.define("HPM_VALGRIND_EXECUTABLE", valgrind.bin.valgrind),
        ]
        if self.spec.satisfies("~mpi"):
            args.append(self.define("CMAKE_DISABLE_FIND_PACKAGE_MPI", True))
        if self.spec.satisfies("~man"):
            args.append(self.define("HPM_HELP2MAN", "HPM_HELP2MAN-NOTFOUND"))
        return args
