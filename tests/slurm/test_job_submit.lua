--[[
test_job_submit.lua - unit test of etc/slurm/job_submit.lua outside slurmctld
(lua5.1 test_job_submit.lua PATH/job_submit.lua [RECORDS]; run by
tests/slurm_lua.sh; with RECORDS, the plugin's records instead of the cases
below, see "plugin records").

slurmctld's job_submit/lua plugin calls slurm_job_submit(job_desc, part_list,
uid) with job_desc.spank_job_env a 0-based table of "NAME=value" strings and
a global `slurm` table (log_user, log_info, SUCCESS, ERROR, NO_VAL); a
normal job has het_job_offset = NO_VAL (4294967294, seen on Slurm 22.05.8
in the test cluster's log). This driver builds exactly that and checks the
rules of doc/slurm.md ("job_submit.lua", "The recorded plan") case by case:
which plans are applied, with which partition, node count, constraint, GRES
and requeue, and that every malformed or out-of-limit plan is rejected with
a message naming the field. Expected values are written from the contract
and the site limits the script documents (partitions onprem, cloud-spot,
cloud-ondemand, burst; types a100-node, t4-node onprem and g4dn.12xlarge,
p3.2xlarge cloud; at most 16 nodes, 8 GPUs per node), not from the code.
]]

local path = assert(arg[1], "usage: lua5.1 test_job_submit.lua job_submit.lua")
local NO_VAL = 4294967294
local messages = {}
-- As slurmctld (Slurm 22.05 src/lua/slurm_lua.c): every slurm.log_* passes
-- its arguments to string.format, so a '%' in a message without arguments
-- raises a Lua error there too.
local function logger(fmt, ...) return string.format(fmt, ...) end
slurm = {
    SUCCESS = 0, ERROR = -1, NO_VAL = NO_VAL,
    log_user = function(...) messages[#messages + 1] = logger(...) end,
    log_info = logger, log_debug = logger, log_error = logger,
}

-- ------------------------------------------------------------------ plugin records
-- lua5.1 test_job_submit.lua job_submit.lua RECORDS: RECORDS is the output
-- of tests/spank_records (spank_slo.so's sslo_plan() records, format in
-- tests/spank_records.c). Each plan's types are added to the script's
-- SITE.instance_types (the site admin's job); then every plan must be
-- applied in enforce mode exactly as its records say (partition, nodes,
-- constraint, GRES, requeue: the contract), and shown unchanged in advise
-- mode ("the plan would set", not "plan not shown").
if arg[2] then
    local f = assert(io.open(arg[2], "r"))
    local cases, cur, types = {}, nil, {}
    for line in f:lines() do
        local name = line:match("^case (%S+)$")
        if name then
            cur = { name = name, env = { "_SLURM_SPANK_OPTION_slo_slo_loss=x" }, rec = {} }
        elseif line:match("^site%-type ") then
            local t, site = line:match("^site%-type (%S+) (%a+)$")
            types[t] = site
        elseif line:match("^record ") then
            local entry = line:sub(8)
            local k, v = entry:match("^([%w_]+)=(.*)$")
            cur.env[#cur.env + 1] = entry
            cur.rec[k] = v
        elseif line == "end" then
            cases[#cases + 1] = cur
        end
    end
    f:close()
    local src = assert(io.open(path, "r")):read("*a")
    local add = {}
    for t, site in pairs(types) do add[#add + 1] = string.format("[%q] = %q,", t, site) end
    local n
    src, n = src:gsub("instance_types = {", "instance_types = { " .. table.concat(add, " "), 1)
    assert(n == 1, "job_submit.lua: SITE.instance_types not found")
    assert(assert(loadstring(src, "=job_submit.lua"))() == slurm.SUCCESS)
    local passes, fails = 0, 0
    local function check(ok, name, detail)
        if ok then passes = passes + 1; print("ok - " .. name)
        else fails = fails + 1; print("not ok - " .. name); print("#   " .. detail) end
    end
    for _, c in ipairs(cases) do
        local r = c.rec
        for _, mode in ipairs({ "enforce", "advise" }) do
            local env = {}
            for i, e in ipairs(c.env) do
                env[i] = e:match("^SLO_MODE=") and ("SLO_MODE=" .. mode) or e
            end
            local jd = { min_nodes = NO_VAL, max_nodes = NO_VAL, requeue = NO_VAL,
                         het_job_offset = NO_VAL, spank_job_env = {} }
            for i, e in ipairs(env) do jd.spank_job_env[i - 1] = e end
            messages = {}
            local okcall, rc = pcall(slurm_job_submit, jd, {}, 1000)
            local msg = okcall and table.concat(messages, "\n") or ("Lua error: " .. tostring(rc))
            local detail = "rc " .. tostring(rc) .. " msg " .. msg
            local ok
            if mode == "enforce" then
                ok = okcall and rc == slurm.SUCCESS and jd.partition == r.SLO_PARTITION and
                    jd.min_nodes == tonumber(r.SLO_NODES) and jd.max_nodes == tonumber(r.SLO_NODES) and
                    jd.features == r.SLO_CONSTRAINT and jd.tres_per_node == "gres:" .. r.SLO_GRES and
                    jd.requeue == (r.SLO_SPOT == "1" and 1 or NO_VAL)
            else
                ok = okcall and rc == slurm.SUCCESS and jd.partition == nil and
                    jd.min_nodes == NO_VAL and jd.features == nil and
                    msg:find("the plan would set", 1, true) ~= nil
            end
            check(ok, "plugin records " .. c.name .. " (" .. #r.SLO_INSTANCES ..
                "-character SLO_INSTANCES, SLO_LOSS=" .. r.SLO_LOSS .. "), " .. mode, detail)
        end
    end
    print(passes .. " passed, " .. fails .. " failed")
    os.exit((fails == 0 and passes > 0) and 0 or 1)
end

assert(dofile(path) == slurm.SUCCESS, "job_submit.lua did not return slurm.SUCCESS")

local passes, fails = 0, 0
local function report(ok, name, detail)
    if ok then
        passes = passes + 1
        print("ok - " .. name)
    else
        fails = fails + 1
        print("not ok - " .. name)
        if detail then print("#   " .. detail) end
    end
end

-- a job request as sbatch sends it (the user asked for nothing special)
local function job(env, extra)
    local t = { partition = nil, min_nodes = NO_VAL, max_nodes = NO_VAL,
                features = nil, tres_per_node = nil, requeue = NO_VAL,
                het_job_offset = NO_VAL, spank_job_env = {} }
    local i = 0
    for _, e in ipairs(env) do t.spank_job_env[i] = e; i = i + 1 end
    for k, v in pairs(extra or {}) do
        if v == false then t[k] = nil else t[k] = v end
    end
    return t
end

-- plan fields from a compact table; nil drops one, false keeps it out
local BASE = {
    SLO_PLAN_VERSION = "1", SLO_MODE = "enforce", SLO_PARTITION = "onprem",
    SLO_NODES = "1", SLO_INSTANCES = "a100-node:1", SLO_CONSTRAINT = "a100-node",
    SLO_GRES = "gpu:2", SLO_SPOT = "0", SLO_PRICING = "on-prem",
    SLO_COST_USD = "0.51", SLO_COST_USD_PER_H = "1.10", SLO_TIME_S = "1681.15",
    SLO_DEADLINE_S = "2400", SLO_LOSS = "0.8", SLO_ITERATIONS = "1200",
    SLO_WORKERS = "1", SLO_WORKLOAD = "testnet",
}
local function plan(changes)
    local p = {}
    for k, v in pairs(BASE) do p[k] = v end
    for k, v in pairs(changes or {}) do
        if v == false then p[k] = nil else p[k] = v end
    end
    local env = { "_SLURM_SPANK_OPTION_slo_slo_loss=0.8" }   -- as sbatch also sends it
    local keys = {}
    for k in pairs(p) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do env[#env + 1] = k .. "=" .. p[k] end
    return env
end

-- A Lua error in slurm_job_submit makes slurmctld reject the job with a
-- generic error: here it is a failed case with the error as message.
local function run(env, extra)
    messages = {}
    local jd = job(env, extra)
    local okcall, rc = pcall(slurm_job_submit, jd, {}, 1000)
    if not okcall then
        return "lua error", jd, "Lua error: " .. tostring(rc)
    end
    return rc, jd, table.concat(messages, "\n")
end

-- accepted: the request carries exactly these values
local function applied(name, env, want)
    local rc, jd, msg = run(env)
    local ok = rc == slurm.SUCCESS
    local detail = "rc " .. tostring(rc) .. " msg " .. msg
    for k, v in pairs(want) do
        if jd[k] ~= v then
            ok = false
            detail = detail .. "; " .. k .. " = " .. tostring(jd[k]) .. ", want " .. tostring(v)
        end
    end
    if not msg:match("^slo: ") then ok = false; detail = detail .. "; no slo: message to the user" end
    report(ok, name, detail)
end

-- rejected with a message naming FIELD; the request is not half-changed
local function rejected(name, env, field, extra)
    local rc, jd, msg = run(env, extra)
    local ok = rc == slurm.ERROR and msg:find(field, 1, true) ~= nil and
        jd.partition == nil and jd.min_nodes == NO_VAL and jd.features == nil and
        not msg:find("\n", 1, true)
    report(ok, name .. " -> rejected naming " .. field,
        "rc " .. tostring(rc) .. " msg " .. msg .. " partition " .. tostring(jd.partition))
end

-- unchanged and accepted
local function unchanged(name, env, pattern, extra)
    local rc, jd, msg = run(env, extra)
    local ok = rc == slurm.SUCCESS and jd.partition == nil and jd.min_nodes == NO_VAL and
        jd.max_nodes == NO_VAL and jd.features == nil and jd.tres_per_node == nil and
        jd.requeue == NO_VAL and (pattern == nil or msg:find(pattern, 1, true) ~= nil)
    report(ok, name, "rc " .. tostring(rc) .. " msg " .. msg)
end

-- ---------------------------------------------------------------- no plan
unchanged("job without --slo-*: untouched, silent", { "_SLURM_SPANK_OPTION_other=1", "FOO=bar" })
unchanged("job with no spank_job_env at all", {}, nil, { spank_job_env = false })

-- ---------------------------------------------------------------- applied plans
applied("on-prem plan a100-node:1 (the test cluster's on-prem SLO)", plan(),
    { partition = "onprem", min_nodes = 1, max_nodes = 1, features = "a100-node",
      tres_per_node = "gres:gpu:2", requeue = NO_VAL })
applied("mixed burst plan: feature counts [a*1&b*1&c*1], requeue for spot",
    plan({ SLO_PARTITION = "burst", SLO_NODES = "3",
           SLO_INSTANCES = "a100-node:1,t4-node:1,g4dn.12xlarge:1",
           SLO_CONSTRAINT = "[a100-node*1&t4-node*1&g4dn.12xlarge*1]", SLO_SPOT = "1",
           SLO_PRICING = "spot" }),
    { partition = "burst", min_nodes = 3, max_nodes = 3,
      features = "[a100-node*1&t4-node*1&g4dn.12xlarge*1]", tres_per_node = "gres:gpu:2",
      requeue = 1 })
applied("cloud spot plan g4dn.12xlarge:2",
    plan({ SLO_PARTITION = "cloud-spot", SLO_NODES = "2", SLO_INSTANCES = "g4dn.12xlarge:2",
           SLO_CONSTRAINT = "g4dn.12xlarge", SLO_SPOT = "1", SLO_GRES = "gpu:4",
           SLO_PRICING = "spot" }),
    { partition = "cloud-spot", min_nodes = 2, features = "g4dn.12xlarge",
      tres_per_node = "gres:gpu:4", requeue = 1 })
applied("on-demand plan: no requeue",
    plan({ SLO_PARTITION = "cloud-ondemand", SLO_NODES = "16", SLO_INSTANCES = "p3.2xlarge:16",
           SLO_CONSTRAINT = "p3.2xlarge", SLO_SPOT = "0", SLO_PRICING = "on-demand",
           SLO_GRES = "gpu:8" }),
    { partition = "cloud-ondemand", min_nodes = 16, max_nodes = 16, requeue = NO_VAL,
      tres_per_node = "gres:gpu:8" })
applied("informative fields may be absent",
    plan({ SLO_COST_USD = false, SLO_TIME_S = false, SLO_WORKLOAD = false, SLO_PRICING = false }),
    { partition = "onprem", min_nodes = 1 })

-- ---------------------------------------------------------------- advise mode
unchanged("advise: plan shown, request unchanged", plan({ SLO_MODE = "advise" }), "advise")
unchanged("advise with a malformed plan: still unchanged, accepted",
    plan({ SLO_MODE = "advise", SLO_NODES = "999" }), "advise")

-- ---------------------------------------------------------------- forged / malformed plans
rejected("partition not allowed to plans (admin)", plan({ SLO_PARTITION = "admin" }), "SLO_PARTITION")
rejected("partition empty", plan({ SLO_PARTITION = "" }), "SLO_PARTITION")
rejected("partition missing", plan({ SLO_PARTITION = false }), "SLO_PARTITION")
rejected("more nodes than the site allows (17 > 16)",
    plan({ SLO_NODES = "17", SLO_INSTANCES = "a100-node:17" }), "SLO_NODES")
rejected("huge node count", plan({ SLO_NODES = "99999999999999999999" }), "SLO_NODES")
rejected("zero nodes", plan({ SLO_NODES = "0", SLO_INSTANCES = "a100-node:0" }), "SLO_NODES")
rejected("negative nodes", plan({ SLO_NODES = "-1" }), "SLO_NODES")
rejected("nodes with a leading zero", plan({ SLO_NODES = "01" }), "SLO_NODES")
rejected("nodes not an integer", plan({ SLO_NODES = "1.5" }), "SLO_NODES")
rejected("nodes with trailing text", plan({ SLO_NODES = "1 " }), "SLO_NODES")
rejected("nodes as a range", plan({ SLO_NODES = "1-4" }), "SLO_NODES")
rejected("unknown instance type", plan({ SLO_INSTANCES = "h100-node:1", SLO_CONSTRAINT = "h100-node" }),
    "SLO_INSTANCES")
rejected("instance list without count", plan({ SLO_INSTANCES = "a100-node" }), "SLO_INSTANCES")
rejected("instance count zero",
    plan({ SLO_NODES = "1", SLO_INSTANCES = "a100-node:1,t4-node:0" }), "SLO_INSTANCES")
rejected("instance type twice",
    plan({ SLO_NODES = "2", SLO_INSTANCES = "a100-node:1,a100-node:1" }), "SLO_INSTANCES")
rejected("counts do not add up to SLO_NODES",
    plan({ SLO_NODES = "2", SLO_INSTANCES = "a100-node:1" }), "SLO_INSTANCES")
rejected("trailing comma", plan({ SLO_INSTANCES = "a100-node:1," }), "SLO_INSTANCES")
rejected("cloud type in the on-prem partition",
    plan({ SLO_INSTANCES = "g4dn.12xlarge:1", SLO_CONSTRAINT = "g4dn.12xlarge" }), "SLO_INSTANCES")
rejected("on-prem type in the spot partition",
    plan({ SLO_PARTITION = "cloud-spot", SLO_SPOT = "1" }), "SLO_INSTANCES")
rejected("constraint that widens the plan (OR)",
    plan({ SLO_CONSTRAINT = "a100-node|t4-node" }), "SLO_CONSTRAINT")
rejected("constraint that does not match the instances",
    plan({ SLO_CONSTRAINT = "t4-node" }), "SLO_CONSTRAINT")
rejected("constraint with other counts",
    plan({ SLO_PARTITION = "burst", SLO_NODES = "2", SLO_INSTANCES = "a100-node:1,t4-node:1",
           SLO_CONSTRAINT = "[a100-node*2&t4-node*1]" }), "SLO_CONSTRAINT")
rejected("gres zero", plan({ SLO_GRES = "gpu:0" }), "SLO_GRES")
rejected("gres over the site limit", plan({ SLO_GRES = "gpu:9" }), "SLO_GRES")
rejected("gres with a second resource", plan({ SLO_GRES = "gpu:2,license:9" }), "SLO_GRES")
rejected("gres with a type", plan({ SLO_GRES = "gpu:a100:2" }), "SLO_GRES")
rejected("spot flag not 0/1", plan({ SLO_SPOT = "yes" }), "SLO_SPOT")
rejected("spot partition without the spot flag (no requeue)",
    plan({ SLO_PARTITION = "cloud-spot", SLO_INSTANCES = "g4dn.12xlarge:1",
           SLO_CONSTRAINT = "g4dn.12xlarge", SLO_SPOT = "0" }), "SLO_SPOT")
rejected("unknown plan version", plan({ SLO_PLAN_VERSION = "2" }), "SLO_PLAN_VERSION")
rejected("unknown mode", plan({ SLO_MODE = "force" }), "SLO_MODE")
rejected("gres missing", plan({ SLO_GRES = false }), "SLO_GRES")
rejected("pricing unknown", plan({ SLO_PRICING = "free" }), "SLO_PRICING")
rejected("time not a number", plan({ SLO_TIME_S = "1e9" }), "SLO_TIME_S")
rejected("workload name with a space", plan({ SLO_WORKLOAD = "a b" }), "SLO_WORKLOAD")
-- SLO_BUDGET_USD (--slo-budget, only when given; slo-requeue re-plans within it)
applied("budget recorded", plan({ SLO_BUDGET_USD = "12.5" }), { partition = "onprem", min_nodes = 1 })
rejected("budget with an exponent", plan({ SLO_BUDGET_USD = "1e3" }), "SLO_BUDGET_USD")
rejected("budget negative", plan({ SLO_BUDGET_USD = "-1" }), "SLO_BUDGET_USD")
rejected("budget empty", plan({ SLO_BUDGET_USD = "" }), "SLO_BUDGET_USD")
rejected("control characters are not echoed",
    plan({ SLO_PARTITION = "on\nprem\27[2J" }), "SLO_PARTITION")
-- '%' in plan values: slurm.log_user formats its first argument (review
-- finding 1: SLO_PARTITION=%d%n raised "bad argument #2 to 'format'").
for _, v in ipairs({ "%d%n", "%s", "100%", "%%" }) do
    rejected("partition " .. v .. " (a format directive)", plan({ SLO_PARTITION = v }),
        "SLO_PARTITION")
    unchanged("advise with partition " .. v .. ": unchanged, the message names the field",
        plan({ SLO_MODE = "advise", SLO_PARTITION = v }), "SLO_PARTITION")
end
rejected("instances with '%'", plan({ SLO_INSTANCES = "a100-node:%d" }), "SLO_INSTANCES")
rejected("workload with '%'", plan({ SLO_WORKLOAD = "%s%s%s" }), "SLO_WORKLOAD")
rejected("constraint with '%'", plan({ SLO_CONSTRAINT = "%n" }), "SLO_CONSTRAINT")
do
    -- the quoted value shows '%' as '?'
    local rc, _, msg = run(plan({ SLO_PARTITION = "a%db" }))
    report(rc == slurm.ERROR and msg:find("'a?db'", 1, true) ~= nil and
        not msg:find("%", 1, true), "'%' in a quoted value is shown as '?'", "msg " .. msg)
end
do
    local env = plan()
    env[#env + 1] = "SLO_NODES=2"
    rejected("a field given twice", env, "SLO_NODES")
end
rejected("heterogeneous job component", plan(), "heterogeneous", { het_job_offset = 0 })

-- ---------------------------------------------------------------- spot from the types (trial S8)
-- Site: cloud-spot holds spot nodes, cloud-ondemand on-demand ones, the
-- burst partition's cloud nodes are spot (SITE.burst_cloud = "spot", the
-- test cluster's c1/c2 carry feature spot); on-prem nodes are never spot.
rejected("burst plan of cloud types only, SLO_SPOT=0 (trial S8: was applied, requeue=no)",
    plan({ SLO_PARTITION = "burst", SLO_NODES = "2", SLO_INSTANCES = "g4dn.12xlarge:2",
           SLO_CONSTRAINT = "g4dn.12xlarge", SLO_SPOT = "0" }), "SLO_SPOT")
rejected("mixed burst plan with SLO_SPOT=0",
    plan({ SLO_PARTITION = "burst", SLO_NODES = "2", SLO_INSTANCES = "a100-node:1,g4dn.12xlarge:1",
           SLO_CONSTRAINT = "[a100-node*1&g4dn.12xlarge*1]", SLO_SPOT = "0" }), "SLO_SPOT")
rejected("SLO_PRICING=on-demand in the cloud-spot partition (trial S8)",
    plan({ SLO_PARTITION = "cloud-spot", SLO_INSTANCES = "g4dn.12xlarge:1",
           SLO_CONSTRAINT = "g4dn.12xlarge", SLO_SPOT = "1", SLO_PRICING = "on-demand" }),
    "SLO_PRICING")
rejected("SLO_PRICING=spot in the cloud-ondemand partition",
    plan({ SLO_PARTITION = "cloud-ondemand", SLO_INSTANCES = "p3.2xlarge:1",
           SLO_CONSTRAINT = "p3.2xlarge", SLO_SPOT = "0", SLO_PRICING = "spot" }),
    "SLO_PRICING")
rejected("SLO_SPOT=1 in the cloud-ondemand partition",
    plan({ SLO_PARTITION = "cloud-ondemand", SLO_INSTANCES = "p3.2xlarge:1",
           SLO_CONSTRAINT = "p3.2xlarge", SLO_SPOT = "1", SLO_PRICING = "on-demand" }),
    "SLO_SPOT")
rejected("SLO_SPOT=1 for an on-prem-only plan",
    plan({ SLO_SPOT = "1" }), "SLO_SPOT")
rejected("burst plan of on-prem types only with SLO_SPOT=1",
    plan({ SLO_PARTITION = "burst", SLO_NODES = "2", SLO_INSTANCES = "a100-node:1,t4-node:1",
           SLO_CONSTRAINT = "[a100-node*1&t4-node*1]", SLO_SPOT = "1" }), "SLO_SPOT")
applied("burst plan of on-prem types only: no requeue",
    plan({ SLO_PARTITION = "burst", SLO_NODES = "2", SLO_INSTANCES = "a100-node:1,t4-node:1",
           SLO_CONSTRAINT = "[a100-node*1&t4-node*1]", SLO_SPOT = "0" }),
    { partition = "burst", min_nodes = 2, requeue = NO_VAL })
applied("burst plan of cloud types only, SLO_SPOT=1: requeue",
    plan({ SLO_PARTITION = "burst", SLO_NODES = "2", SLO_INSTANCES = "g4dn.12xlarge:2",
           SLO_CONSTRAINT = "g4dn.12xlarge", SLO_SPOT = "1", SLO_PRICING = "spot" }),
    { partition = "burst", min_nodes = 2, requeue = 1 })
-- SLO_PRICING says what the plan is priced at (issue 14: an all-on-prem plan
-- recorded spot): on-prem exactly when the plan has no cloud type
rejected("on-prem plan recorded SLO_PRICING=spot", plan({ SLO_PRICING = "spot" }), "SLO_PRICING")
rejected("on-prem plan recorded SLO_PRICING=on-demand", plan({ SLO_PRICING = "on-demand" }),
    "SLO_PRICING")
rejected("cloud plan recorded SLO_PRICING=on-prem",
    plan({ SLO_PARTITION = "cloud-spot", SLO_INSTANCES = "g4dn.12xlarge:1",
           SLO_CONSTRAINT = "g4dn.12xlarge", SLO_SPOT = "1", SLO_PRICING = "on-prem" }),
    "SLO_PRICING")
applied("burst plan of on-prem types only, SLO_PRICING=on-prem",
    plan({ SLO_PARTITION = "burst", SLO_NODES = "2", SLO_INSTANCES = "a100-node:1,t4-node:1",
           SLO_CONSTRAINT = "[a100-node*1&t4-node*1]", SLO_SPOT = "0" }),
    { partition = "burst", requeue = NO_VAL })

-- ---------------------------------------------------------------- time limit (issue 14)
-- minutes = ceil(SLO_DEADLINE_S / 60) + SITE.time_limit_grace_min (5):
-- 2400 s -> 40 + 5 = 45; 2401 s -> 41 + 5 = 46; the user's shorter --time stays
applied("time limit: deadline 2400 s -> 45 min", plan(), { time_limit = 45 })
applied("time limit: deadline 2401 s -> 46 min", plan({ SLO_DEADLINE_S = "2401" }),
    { time_limit = 46 })
do
    local rc, jd = run(plan(), { time_limit = 30 })
    report(rc == slurm.SUCCESS and jd.time_limit == 30, "the user's --time=30 (< 45) is kept",
        "rc " .. tostring(rc) .. " time_limit " .. tostring(jd.time_limit))
    rc, jd = run(plan(), { time_limit = 525600 })
    report(rc == slurm.SUCCESS and jd.time_limit == 45, "the user's --time=365-0 becomes 45",
        "rc " .. tostring(rc) .. " time_limit " .. tostring(jd.time_limit))
    rc, jd = run(plan({ SLO_MODE = "advise" }), { time_limit = NO_VAL })
    report(rc == slurm.SUCCESS and jd.time_limit == NO_VAL, "advise: no time limit set",
        "rc " .. tostring(rc) .. " time_limit " .. tostring(jd.time_limit))
end
rejected("deadline missing", plan({ SLO_DEADLINE_S = false }), "SLO_DEADLINE_S")
rejected("deadline 0", plan({ SLO_DEADLINE_S = "0" }), "SLO_DEADLINE_S")
rejected("deadline over a year", plan({ SLO_DEADLINE_S = "99999999" }), "SLO_DEADLINE_S")

-- ---------------------------------------------------------------- scontrol update (issue 14)
-- slurm_job_modify(job_desc, job_rec, part_list, uid): job_rec is the job as
-- submitted with its enforced plan applied; job_desc holds only what the
-- update sets (unset: nil / NO_VAL).
do
    local ESLURM_ACCESS_DENIED = 2002
    local function rec(env)
        local r = { job_id = 7, partition = "onprem", features = "a100-node",
                    tres_per_node = "gres:gpu:2", min_nodes = 1, max_nodes = 1,
                    time_limit = 45, spank_job_env = {} }
        for i, e in ipairs(env) do r.spank_job_env[i - 1] = e end
        return r
    end
    local function upd(t)
        local d = { min_nodes = NO_VAL, max_nodes = NO_VAL, time_limit = NO_VAL, requeue = NO_VAL }
        for k, v in pairs(t) do d[k] = v end
        return d
    end
    local cases = {
        { "Partition=admin", { partition = "admin" } },
        { "Features=t4-node", { features = "t4-node" } },
        { "Gres=gpu:1", { tres_per_node = "gres:gpu:1" } },
        { "NumNodes=2", { min_nodes = 2, max_nodes = 2 } },
        { "TimeLimit=365-0", { time_limit = 525600 } },
        { "NodeList=n2", { req_nodes = "n2" } },
    }
    for _, c in ipairs(cases) do
        messages = {}
        local rc = slurm_job_modify(upd(c[2]), rec(plan()), {}, 1000)
        report(rc == ESLURM_ACCESS_DENIED, "user uid 1000: scontrol update " .. c[1] ..
            " of an enforced planned job -> refused", "rc " .. tostring(rc))
        rc = slurm_job_modify(upd(c[2]), rec(plan()), {}, 0)
        report(rc == slurm.SUCCESS, "uid 0: scontrol update " .. c[1] .. " -> allowed",
            "rc " .. tostring(rc))
    end
    local ok_cases = {
        { "the same Partition=onprem", { partition = "onprem" } },
        { "a shorter TimeLimit=30", { time_limit = 30 } },
        { "Comment only", { comment = "x" } },
    }
    for _, c in ipairs(ok_cases) do
        local rc = slurm_job_modify(upd(c[2]), rec(plan()), {}, 1000)
        report(rc == slurm.SUCCESS, "user: " .. c[1] .. " -> allowed", "rc " .. tostring(rc))
    end
    local rc = slurm_job_modify(upd({ partition = "admin" }), rec(plan({ SLO_MODE = "advise" })), {}, 1000)
    report(rc == slurm.SUCCESS, "user: Partition=admin of an advise-mode job -> allowed (not planned)",
        "rc " .. tostring(rc))
    rc = slurm_job_modify(upd({ partition = "admin" }), rec({ "FOO=1" }), {}, 1000)
    report(rc == slurm.SUCCESS, "user: Partition=admin of a job without a plan -> allowed",
        "rc " .. tostring(rc))
end

-- ---------------------------------------------------------------- the user's own -w/-x/--gpus* (trial S2, S3)
-- Field names of Slurm 22.05's job_submit/lua (job_submit_lua.c
-- _get_job_req_field): req_nodes (-w), exc_nodes (-x), tres_per_job (--gpus),
-- tres_per_task (--gpus-per-task), tres_per_socket (--gpus-per-socket); the
-- GPU ones hold "gres:gpu:N" (sbatch prefixes "gres:"). Enforce mode rejects
-- the job with one line naming the option and pointing to --slo-mode=advise;
-- advise mode keeps them.
local USER_REQUESTS = {
    { "req_nodes", "t4-node01", "--nodelist/-w" },
    { "req_nodes", "n[1-2]", "--nodelist/-w" },
    { "exc_nodes", "n2", "--exclude/-x" },
    { "tres_per_job", "gres:gpu:2", "--gpus" },
    { "tres_per_task", "gres:gpu:1", "--gpus-per-task" },
    { "tres_per_socket", "gres:gpu:1", "--gpus-per-socket" },
}
for _, u in ipairs(USER_REQUESTS) do
    local field, value, option = u[1], u[2], u[3]
    local extra = { [field] = value }
    local rc, jd, msg = run(plan(), extra)
    report(rc == slurm.ERROR and msg:find(option, 1, true) ~= nil and
        msg:find("--slo-mode=advise", 1, true) ~= nil and msg:find(value, 1, true) ~= nil and
        jd.partition == nil and jd.features == nil and jd.tres_per_node == nil and
        jd[field] == value and not msg:find("\n", 1, true),
        "enforce with " .. field .. "=" .. value .. " -> rejected naming " .. option ..
        " and --slo-mode=advise, request untouched", "rc " .. tostring(rc) .. " msg " .. msg)
    rc, jd, msg = run(plan({ SLO_MODE = "advise" }), extra)
    report(rc == slurm.SUCCESS and jd[field] == value and jd.partition == nil and
        msg:find("advise", 1, true) ~= nil,
        "advise with " .. field .. "=" .. value .. " -> accepted, unchanged",
        "rc " .. tostring(rc) .. " msg " .. msg)
    rc, jd, msg = run({ "_SLURM_SPANK_OPTION_other=1" }, extra)
    report(rc == slurm.SUCCESS and jd[field] == value and msg == "",
        "no plan with " .. field .. "=" .. value .. " -> not ours, silent",
        "rc " .. tostring(rc) .. " msg " .. msg)
end
do
    -- several at once: all named in the one line
    local rc, _, msg = run(plan(), { req_nodes = "n1", exc_nodes = "n2", tres_per_job = "gres:gpu:1" })
    report(rc == slurm.ERROR and msg:find("--nodelist/-w", 1, true) and
        msg:find("--exclude/-x", 1, true) and msg:find("--gpus", 1, true) and
        not msg:find("\n", 1, true),
        "-w, -x and --gpus together: rejected naming all three", "msg " .. msg)
    -- a '%' in the user's node list does not break slurm.log_user's format
    rc, _, msg = run(plan(), { req_nodes = "n%d%s" })
    report(rc == slurm.ERROR and msg:find("--nodelist/-w", 1, true) and
        not msg:find("%", 1, true), "-w with '%': rejected, '%' shown as '?'", "msg " .. msg)
    -- empty strings (unset) and a non-GPU per-task TRES are not conflicts
    rc = run(plan(), { req_nodes = "", exc_nodes = "", tres_per_job = "", tres_per_task = "cpu:2" })
    report(rc == slurm.SUCCESS, "empty -w/-x/--gpus and tres_per_task=cpu:2: applied",
        "rc " .. tostring(rc))
end

-- ------------------------------------------------------------------ serving plans
-- sbatch --slo-serve (doc/slurm.md "Serving jobs"): SLO_KIND=serve. GRES
-- from the tenants: one GPU -> gres:mps:<sum of units>, G GPUs -> gres:gpu:G.
local SERVE = {
    SLO_PLAN_VERSION = "1", SLO_MODE = "enforce", SLO_KIND = "serve",
    SLO_PARTITION = "onprem", SLO_NODES = "1", SLO_CONSTRAINT = "a100-node",
    SLO_GRES = "mps:43", SLO_SERVE_GPUS = "1", SLO_SERVE_TENANTS = "2",
    SLO_SERVE_PLAN = "vgg19:0:6:35:200:60,alexnet:0:5:8:500:20",
    SLO_SERVE_PROFILE = "v100", SLO_PRICING = "on-prem", SLO_COST_USD_PER_H = "0.55",
}
local function serve(changes)
    local p = {}
    for k, v in pairs(SERVE) do p[k] = v end
    for k, v in pairs(changes or {}) do
        if v == false then p[k] = nil else p[k] = v end
    end
    local env = { "_SLURM_SPANK_OPTION_slo_slo_serve=x" }
    local keys = {}
    for k in pairs(p) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do env[#env + 1] = k .. "=" .. p[k] end
    return env
end
applied("serve: one GPU, two tenants", serve(), {
    partition = "onprem", min_nodes = 1, max_nodes = 1, features = "a100-node",
    tres_per_node = "gres:mps:43", num_tasks = 2,
    admin_comment = "slo-serve:vgg19:0:6:35:200:60,alexnet:0:5:8:500:20" })
applied("serve: two GPUs, three tenants", serve({ SLO_GRES = "gpu:2", SLO_SERVE_GPUS = "2",
    SLO_SERVE_TENANTS = "3", SLO_SERVE_PLAN = "ssd:0:2:60:162:25,vgg19:0:6:38:200:60,ssd:1:3:100:238:25" }), {
    partition = "onprem", min_nodes = 1, max_nodes = 1, tres_per_node = "gres:gpu:2", num_tasks = 3 })
do
    local rc, jd = run(serve({ SLO_CONSTRAINT = "" }), { features = "user-feature" })
    report(rc == slurm.SUCCESS and jd.features == "user-feature" and jd.tres_per_node == "gres:mps:43",
        "serve: no constraint leaves the features alone", "rc " .. tostring(rc) .. " features " .. tostring(jd.features))
    local rc, jd = run(serve(), { num_tasks = 1 })
    report(rc == slurm.SUCCESS and jd.num_tasks == 1 and jd.tres_per_node == "gres:mps:43",
        "serve: a user's --ntasks=1 is kept", "rc " .. tostring(rc) .. " num_tasks " .. tostring(jd.num_tasks))
    rc, jd = run(serve(), { tres_per_node = "gres:gpu:1", min_nodes = 2, max_nodes = 2 })
    report(rc == slurm.SUCCESS and jd.tres_per_node == "gres:mps:43" and jd.min_nodes == 1,
        "serve: a user's --gres=gpu:1 -N 2 is replaced by the plan", "rc " .. tostring(rc))
end
rejected("serve: SLO_GRES that is not the tenants' sum", serve({ SLO_GRES = "mps:100" }), "SLO_GRES")
rejected("serve: gpu:1 for a plan of one GPU", serve({ SLO_GRES = "gpu:1" }), "SLO_GRES")
rejected("serve: shares of one GPU above 100", serve({ SLO_GRES = "mps:108",
    SLO_SERVE_PLAN = "vgg19:0:6:100:200:60,alexnet:0:5:8:500:20" }), "SLO_SERVE_PLAN")
rejected("serve: a tenant on a GPU the plan lacks", serve({
    SLO_SERVE_PLAN = "vgg19:1:6:35:200:60,alexnet:0:5:8:500:20" }), "SLO_SERVE_PLAN")
rejected("serve: a GPU without tenant", serve({ SLO_SERVE_GPUS = "2", SLO_GRES = "gpu:2" }), "SLO_SERVE_PLAN")
rejected("serve: malformed tenant", serve({ SLO_SERVE_PLAN = "vgg19:0:6:35:2e2:60,alexnet:0:5:8:500:20" }),
    "SLO_SERVE_PLAN")
rejected("serve: batch 33", serve({ SLO_SERVE_PLAN = "vgg19:0:33:35:200:60,alexnet:0:5:8:500:20" }),
    "SLO_SERVE_PLAN")
rejected("serve: tenant count", serve({ SLO_SERVE_TENANTS = "3" }), "SLO_SERVE_TENANTS")
rejected("serve: two nodes", serve({ SLO_NODES = "2" }), "SLO_NODES")
rejected("serve: burst partition", serve({ SLO_PARTITION = "burst" }), "SLO_PARTITION")
rejected("serve: unknown constraint", serve({ SLO_CONSTRAINT = "dgx" }), "SLO_CONSTRAINT")
rejected("serve: cloud type in the on-prem partition", serve({ SLO_CONSTRAINT = "p3.2xlarge" }),
    "SLO_CONSTRAINT")
rejected("serve: too many GPUs", serve({ SLO_SERVE_GPUS = "9", SLO_GRES = "gpu:9" }), "SLO_SERVE_GPUS")
rejected("serve: missing SLO_SERVE_PLAN", serve({ SLO_SERVE_PLAN = false }), "SLO_SERVE_PLAN")
rejected("serve: unknown SLO_KIND", serve({ SLO_KIND = "train" }), "SLO_KIND")
rejected("serve: --gpus next to a serving plan", serve(), "--gpus/-G", { tres_per_job = "gres:gpu:1" })
unchanged("serve: advise mode", serve({ SLO_MODE = "advise" }),
    "advise mode, request unchanged; the plan would set partition=onprem nodes=1 gres=mps:43 tenants=2")

print(passes .. " passed, " .. fails .. " failed")
os.exit(fails == 0 and 0 or 1)
