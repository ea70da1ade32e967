/* SPDX-License-Identifier: BSD-3-Clause */
/* libhpm's encoder and decoder (hpm_encode_events, hpm_decode_counter):
 * the virtual PMU's unit and a machine file's smaller one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpm_check.h"

#include "hpm/hpm.h"


int main(int argc, char **argv)
{
    const char *names[3] = {"PU0_INSTRUCTIONS", "PU4_FP_FMA", "NODE_CYCLES"};
    struct hpm_encoded_event ev[3];
    char name[64], path[4096];
    int passes = -1, rc;
    FILE *f;
    /* the virtual PMU's unit: as many units as needed, so one configuration */
    rc = hpm_encode_events(NULL, names, 3, ev, &passes);
    CHECKF(rc == HPM_OK && passes == 1, "rc %d passes %d", rc, passes);
    CHECKF(ev[0].code == 0 && ev[1].code == 256 && ev[2].code == 992, "codes");
    CHECKF(ev[0].counter == 0 && ev[1].counter == 0 && ev[0].unit != ev[1].unit,
          "0 and 256 on counter 0 of two units");
    CHECKF(ev[2].counter == 224 && ev[2].block == 3, "NODE_CYCLES counter 224 block 3");
    CHECKF(hpm_decode_counter(NULL, 224, 3, name, sizeof name) == HPM_OK &&
              strcmp(name, "NODE_CYCLES") == 0,
          "decoded %s", name);
    CHECKF(hpm_decode_counter(NULL, 256, 0, name, sizeof name) == HPM_EINVAL, "counter 256");
    /* a machine of one unit: 0 and 256 take two passes */
    snprintf(path, sizeof path, "%s/one_unit.machine", argc > 1 ? argv[1] : ".");
    f = fopen(path, "w");
    if (!f)
        return 1;
    fprintf(f, "name = oneunit\ncores = 4\n[counters]\nunits = 1\n");
    fclose(f);
    rc = hpm_encode_events(path, names, 3, ev, &passes);
    CHECKF(rc == HPM_ECOUNTERS && passes == 2, "rc %d passes %d", rc, passes);
    CHECKF((ev[0].counter < 0) != (ev[1].counter < 0) && ev[0].pass != ev[1].pass,
          "one of 0 and 256 placed, the other in the next pass");
    names[1] = "NO_SUCH_EVENT";
    CHECKF(hpm_encode_events(NULL, names, 3, ev, &passes) == HPM_ENOEVENT && ev[1].code == -1,
          "an unknown name");
    CHECKF(hpm_encode_events("/nonexistent.machine", names, 1, ev, &passes) == HPM_EINVAL,
          "a machine file that cannot be read");
    remove(path);
    if (!failures)
        printf("ok encode api\n");
    return failures ? 1 : 0;
}
