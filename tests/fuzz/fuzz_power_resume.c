/* Fuzz slo-power's reader of Slurm's SLURM_RESUME_FILE (power/nodes.c:
 * power_resume_file_load, power_resume_file_jobs; both Slurm 22.05 and newer
 * shapes). Property: the job list written for a node is "" or a comma list
 * of decimal job ids. */
#include <ctype.h>
#include "power.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    const char *path = fuzz_file(data, size, ".json");
    json_t *resume = NULL;
    char err[1024] = "";
    if (power_resume_file_load(path, &resume, err, sizeof err) == 0) {
        static const char *const nodes[] = {"c1", "c2", "g001", "n1"};
        for (size_t k = 0; k < 4; k++) {
            char buf[4096];
            if (power_resume_file_jobs(resume, nodes[k], buf, sizeof buf) != 0)
                continue;
            for (const char *c = buf; *c; c++)
                FUZZ_REQUIRE(isdigit((unsigned char)*c) || (*c == ',' && c != buf && c[1]),
                             "job list \"%s\"", buf);
        }
        json_decref(resume);
    } else {
        FUZZ_REQUIRE(err[0], "resume file refused without a message");
    }
    return 0;
}
