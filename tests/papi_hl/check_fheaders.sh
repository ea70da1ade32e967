#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# include/papi/fpapi.h and f90papi.h must be exactly what the generator
# writes from papi.h's values (so Fortran and C agree on every constant).
#   check_fheaders.sh GENERATOR INCLUDE_DIR
gen=$1
dir=$2
rc=0
for h in fpapi f90papi; do
    if ! "$gen" "$h" | cmp -s - "$dir/$h.h"; then
        echo "$dir/$h.h is not what papi.h's values give; regenerate it:"
        echo "  $gen $h > $dir/$h.h"
        "$gen" "$h" | diff "$dir/$h.h" - | head -20
        rc=1
    fi
done
[ $rc -eq 0 ] && echo "fpapi.h and f90papi.h match papi.h"
exit $rc
