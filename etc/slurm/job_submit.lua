--[[
job_submit.lua - apply the SLO plan of spank_slo.so on the server side
(slurmctld's job_submit/lua plugin; slo-kernel, etc/slurm/).

spank_slo.so computes a plan at submission (sbatch/salloc/srun, allocator or
local context) and records it with spank_job_control_setenv; the entries reach
slurmctld as job_desc.spank_job_env "NAME=value" strings without prefix (the
interface is doc/slurm.md, "The recorded plan"; shared/research/slurm-mpi-feasibility.md
3.3 A). This script:
  - does nothing for jobs without SLO_PLAN_VERSION (no --slo-* option given);
  - in advise mode (SLO_MODE=advise) tells the user the plan and changes nothing;
  - in enforce mode validates every field strictly -- the plan is
    user-controlled: anyone can submit with another plugstack.conf or forge
    spank_job_env -- and rejects anything malformed or out of the site limits
    below with a message naming the field; otherwise it sets the partition,
    the node count, the features (constraint), the GRES (tres_per_node) and
    --requeue when a cloud type of the plan runs on spot nodes (derived from
    SITE, the plan's SLO_SPOT/SLO_PRICING must agree), and logs the decision
    with slurm.log_user; a job that also gives -w/-x/--gpus/--gpus-per-task/
    --gpus-per-socket is rejected (they contradict the plan; advise mode
    keeps them).

Install: slurm.conf `JobSubmitPlugins=lua`, this file as job_submit.lua in the
directory of slurm.conf. Edits take effect at the next submission; removing
the file does not disable it (slurmctld keeps the old script): remove
JobSubmitPlugins and restart slurmctld. doc/slurm.md has the details.
]]

-- ------------------------------------------------------------------ site limits
-- Edit these to match slurm.conf and spank_slo.so's plugstack arguments.
local SITE = {
    -- partitions a plan may name, and what they hold ("onprem", "spot",
    -- "ondemand", or "burst" = on-prem and cloud nodes for mixed plans)
    partitions = {
        ["onprem"] = "onprem",
        ["cloud-spot"] = "spot",
        ["cloud-ondemand"] = "ondemand",
        ["burst"] = "burst",
    },
    -- instance types (= Slurm node features, the catalog's type names) and
    -- where they live; a plan naming any other type is rejected
    instance_types = {
        ["a100-node"] = "onprem",
        ["t4-node"] = "onprem",
        ["g4dn.12xlarge"] = "cloud",
        ["p3.2xlarge"] = "cloud",
    },
    max_nodes = 16,          -- nodes of one plan (spank_slo.so max_nodes= should not exceed it)
    max_gpus_per_node = 8,   -- SLO_GRES gpu:<n> upper bound
    max_types = 8,           -- instance types in one plan
    -- the cloud nodes of the "burst" partition: "spot" (feature spot),
    -- "ondemand" (feature ondemand) or "both"; with "spot" or "both" a plan
    -- with a cloud type there may run on spot nodes and gets --requeue
    burst_cloud = "spot",
    -- the time limit of an enforced plan, in minutes: the SLO deadline
    -- (SLO_DEADLINE_S, from --slo-time) rounded up, plus this grace for
    -- checkpointing and teardown; the plan's predicted time SLO_TIME_S is at
    -- most the deadline, so a job that reaches the limit has missed its SLO
    time_limit_grace_min = 5,
    -- who may change a planned job with scontrol update (slurm_job_modify):
    -- uid 0; add SlurmUser's uid (slo-requeue, the EpilogSlurmctld, runs as
    -- SlurmUser and re-plans requeued jobs: doc/slurm.md "Re-planning on
    -- requeue") and the uids of your Slurm operators. Everyone else's
    -- changes to what the plan set are refused (Access/permission denied)
    admin_uids = { [0] = true },
    -- serving plans (sbatch --slo-serve, doc/slurm.md "Serving jobs"):
    -- tenants (model placements) of one job, and gres/mps units per GPU
    -- (gres.conf Name=mps Count= per GPU; the plans are written for 100)
    max_serve_tenants = 64,
    mps_per_gpu = 100,
}

-- ------------------------------------------------------------------ helpers
local PREFIX = "slo: "

-- slurmctld defines slurm.log_user(...) as user_msg(string.format(...)) (and
-- log_info likewise): a message is never the format itself, or a '%' from the
-- plan would raise a Lua error and reject the job with a generic message.
local function tell_user(msg)
    slurm.log_user("%s", msg)
end

-- Fields the plan must carry to be applied (doc/slurm.md, "The
-- recorded plan"); the others are informative and checked when present.
local REQUIRED = { "SLO_PLAN_VERSION", "SLO_MODE", "SLO_PARTITION", "SLO_NODES",
                   "SLO_INSTANCES", "SLO_CONSTRAINT", "SLO_GRES", "SLO_SPOT",
                   "SLO_DEADLINE_S" }

-- slurm_errno.h ESLURM_ACCESS_DENIED (Slurm 22.05 does not export it to Lua):
-- scontrol update prints "Access/permission denied"
local ESLURM_ACCESS_DENIED = 2002

-- value patterns of the informative fields (anchored)
local NUMBER = "^%d+%.?%d*$"           -- non-negative decimal, e.g. 12.5
local INFO_PATTERNS = {
    SLO_PRICING = "^[%a%-]+$",
    SLO_COST_USD = NUMBER,
    SLO_COST_USD_PER_H = NUMBER,
    SLO_TIME_S = NUMBER,
    SLO_DEADLINE_S = NUMBER,
    SLO_LOSS = NUMBER,
    SLO_ITERATIONS = "^%d+$",
    SLO_WORKERS = "^%d+$",
    SLO_WORKLOAD = "^[%w%._%-]+$",
    SLO_BUDGET_USD = NUMBER,         -- --slo-budget, only when given (slo-requeue)
}

-- Quote a user-controlled value for a message: printable ASCII only, '%'
-- shown as '?' (slurmctld's slurm.log_user/log_info pass their first argument
-- to string.format), at most 64 characters.
local function q(s)
    s = tostring(s)
    s = s:gsub("[^%w%p ]", "?")
    s = s:gsub("%%", "?")
    if #s > 64 then s = s:sub(1, 61) .. "..." end
    return "'" .. s .. "'"
end

-- Parse a positive decimal integer without sign, leading zero or exponent
-- (at most 9 digits); nil when s is not one.
local function posint(s)
    if type(s) ~= "string" or not s:match("^[1-9]%d?%d?%d?%d?%d?%d?%d?%d?$") then
        return nil
    end
    return tonumber(s)
end

local function sorted_keys(t)
    local k = {}
    for name in pairs(t) do k[#k + 1] = name end
    table.sort(k)
    return k
end

-- Read the SLO_* entries of spank_job_env into a table; returns the table, or
-- nil and an error text (duplicate or malformed entry).
local function read_plan(env)
    local plan = {}
    if type(env) ~= "table" then return plan end
    for _, entry in pairs(env) do
        if type(entry) == "string" then
            local name, value = entry:match("^(SLO_[%w_]*)=(.*)$")
            if name then
                if plan[name] ~= nil then
                    return nil, name .. ": given more than once"
                end
                plan[name] = value
            end
        end
    end
    return plan
end

-- The checks every plan kind opens with: each of required present (what: by
-- which plan, for the error), SLO_PLAN_VERSION 1, SLO_MODE enforce or
-- advise. nil, or the error text naming the field.
local function check_header(plan, required, what)
    for _, name in ipairs(required) do
        if plan[name] == nil then
            return name .. ": missing (expected by " .. what .. ")"
        end
    end
    if plan.SLO_PLAN_VERSION ~= "1" then
        return "SLO_PLAN_VERSION: expected 1, found " .. q(plan.SLO_PLAN_VERSION)
    end
    if plan.SLO_MODE ~= "enforce" and plan.SLO_MODE ~= "advise" then
        return "SLO_MODE: expected enforce or advise, found " .. q(plan.SLO_MODE)
    end
    return nil
end

-- The error text for an instance type t (of field) that is no node feature
-- of this site.
local function unknown_type(field, t)
    return field .. ": instance type " .. q(t) ..
        " is not one of this site's node features (" ..
        table.concat(sorted_keys(SITE.instance_types), ", ") .. ")"
end

-- Validate the plan; returns a table of the values to apply, or nil and an
-- error text naming the field, what was expected and what was found.
local function validate(plan)
    local err = check_header(plan, REQUIRED, "plan version 1")
    if err then
        return nil, err
    end
    local a = {}
    a.mode = plan.SLO_MODE

    a.partition = plan.SLO_PARTITION
    a.kind = SITE.partitions[a.partition]
    if a.kind == nil then
        return nil, "SLO_PARTITION: expected one of " ..
            table.concat(sorted_keys(SITE.partitions), ", ") .. ", found " .. q(a.partition)
    end

    a.nodes = posint(plan.SLO_NODES)
    if a.nodes == nil or a.nodes > SITE.max_nodes then
        return nil, "SLO_NODES: expected an integer 1.." .. SITE.max_nodes ..
            " (site limit), found " .. q(plan.SLO_NODES)
    end

    -- SLO_INSTANCES: type:n[,type:n...], known types, each once, sum = SLO_NODES
    local inst = plan.SLO_INSTANCES
    local types, counts, total, seen = {}, {}, 0, {}
    if #inst > 1024 then
        return nil, "SLO_INSTANCES: longer than 1024 characters"
    end
    for item in (inst .. ","):gmatch("([^,]*),") do
        local t, n = item:match("^([%w%._%-]+):(%d+)$")
        local cnt = posint(n)
        if t == nil or cnt == nil then
            return nil, "SLO_INSTANCES: expected type:count[,type:count...], found " .. q(inst)
        end
        local where = SITE.instance_types[t]
        if where == nil then
            return nil, unknown_type("SLO_INSTANCES", t)
        end
        if seen[t] then
            return nil, "SLO_INSTANCES: instance type " .. q(t) .. " given twice"
        end
        if (a.kind == "onprem" and where ~= "onprem") or
           ((a.kind == "spot" or a.kind == "ondemand") and where ~= "cloud") then
            return nil, "SLO_INSTANCES: " .. where .. " type " .. q(t) ..
                " does not belong in " .. a.kind .. " partition " .. q(a.partition)
        end
        seen[t] = true
        types[#types + 1] = t
        counts[#counts + 1] = cnt
        total = total + cnt
    end
    if #types > SITE.max_types then
        return nil, "SLO_INSTANCES: more than " .. SITE.max_types .. " instance types"
    end
    if total ~= a.nodes then
        return nil, "SLO_INSTANCES: counts add up to " .. total ..
            " nodes, SLO_NODES says " .. a.nodes
    end
    -- the constraint is derived here, never taken from the plan; the plan's
    -- copy must agree (a mismatch means a forged or inconsistent plan)
    if #types == 1 then
        a.features = types[1]
    else
        local parts = {}
        for i = 1, #types do parts[i] = types[i] .. "*" .. counts[i] end
        a.features = "[" .. table.concat(parts, "&") .. "]"
    end
    if plan.SLO_CONSTRAINT ~= a.features then
        return nil, "SLO_CONSTRAINT: expected " .. q(a.features) ..
            " (from SLO_INSTANCES), found " .. q(plan.SLO_CONSTRAINT)
    end

    local g = plan.SLO_GRES:match("^gpu:(%d+)$")
    a.gpus = posint(g)
    if a.gpus == nil or a.gpus > SITE.max_gpus_per_node then
        return nil, "SLO_GRES: expected gpu:<1.." .. SITE.max_gpus_per_node ..
            ">, found " .. q(plan.SLO_GRES)
    end

    if plan.SLO_SPOT ~= "0" and plan.SLO_SPOT ~= "1" then
        return nil, "SLO_SPOT: expected 0 or 1, found " .. q(plan.SLO_SPOT)
    end
    -- Spot or not follows from the plan's types and partition (SITE), never
    -- from the plan's flag: a cloud type runs on spot nodes in the spot
    -- partition and in the burst partition when its cloud nodes are spot.
    -- The flag and SLO_PRICING must agree (a mismatch means a forged or
    -- inconsistent plan; requeue must not depend on it).
    local cloud_types = {}
    for _, t in ipairs(types) do
        if SITE.instance_types[t] == "cloud" then cloud_types[#cloud_types + 1] = t end
    end
    local pricing               -- "spot", "on-demand", or nil = either
    if #cloud_types == 0 then
        a.spot = false
    elseif a.kind == "spot" or (a.kind == "burst" and SITE.burst_cloud == "spot") then
        a.spot, pricing = true, "spot"
    elseif a.kind == "burst" and SITE.burst_cloud == "both" then
        a.spot = true           -- may land on spot nodes: requeue
    else
        a.spot, pricing = false, "on-demand"
    end
    local flag = plan.SLO_SPOT == "1"
    if #cloud_types == 0 and flag then
        return nil, "SLO_SPOT: the plan has no cloud instance type, found 1"
    elseif pricing == "spot" and not flag then
        return nil, "SLO_SPOT: cloud type " .. q(cloud_types[1]) .. " runs on spot nodes in " ..
            a.kind .. " partition " .. q(a.partition) .. ", found 0"
    elseif pricing == "on-demand" and flag then
        return nil, "SLO_SPOT: cloud type " .. q(cloud_types[1]) .. " runs on on-demand nodes in " ..
            a.kind .. " partition " .. q(a.partition) .. ", found 1"
    end
    -- a plan without cloud types is priced at the on-prem rates: SLO_PRICING
    -- says so (an all-on-prem plan recorded as "spot" would be a false record)
    if #cloud_types == 0 and plan.SLO_PRICING ~= nil and plan.SLO_PRICING ~= "on-prem" then
        return nil, "SLO_PRICING: the plan has no cloud instance type, expected on-prem, found " ..
            q(plan.SLO_PRICING)
    end
    if #cloud_types > 0 and plan.SLO_PRICING == "on-prem" then
        return nil, "SLO_PRICING: cloud type " .. q(cloud_types[1]) ..
            " is priced spot or on-demand, found 'on-prem'"
    end
    if pricing ~= nil and plan.SLO_PRICING ~= nil and plan.SLO_PRICING ~= pricing then
        return nil, "SLO_PRICING: cloud type " .. q(cloud_types[1]) .. " in " .. a.kind ..
            " partition " .. q(a.partition) .. " is priced " .. pricing .. ", found " ..
            q(plan.SLO_PRICING)
    end

    for _, name in ipairs(sorted_keys(INFO_PATTERNS)) do
        local v = plan[name]
        if v ~= nil and (#v > 64 or not v:match(INFO_PATTERNS[name])) then
            return nil, name .. ": malformed value " .. q(v)
        end
    end
    if plan.SLO_PRICING ~= nil and plan.SLO_PRICING ~= "spot" and
       plan.SLO_PRICING ~= "on-demand" and plan.SLO_PRICING ~= "on-prem" then
        return nil, "SLO_PRICING: expected spot, on-demand or on-prem, found " ..
            q(plan.SLO_PRICING)
    end
    local deadline = tonumber(plan.SLO_DEADLINE_S)
    if not plan.SLO_DEADLINE_S:match(NUMBER) or deadline == nil or deadline <= 0 or
       deadline > 366 * 86400 then
        return nil, "SLO_DEADLINE_S: expected seconds 0 < s <= 31622400, found " ..
            q(plan.SLO_DEADLINE_S)
    end
    a.time_limit = math.ceil(deadline / 60) + SITE.time_limit_grace_min
    a.instances = inst
    a.time_s = plan.SLO_TIME_S
    a.cost = plan.SLO_COST_USD
    return a
end

-- The user's own node and GPU requests that an applied plan would contradict
-- (trial S2, S3): Slurm 22.05 job_submit/lua field names
-- (src/plugins/job_submit/lua/job_submit_lua.c _get_job_req_field) and the
-- sbatch/salloc/srun options that set them. Kept next to the plan's
-- constraint, -w/-x leave the job pending forever (BadConstraints); --gpus*
-- next to the plan's tres_per_node make Slurm refuse the GRES. The job is
-- rejected, not silently changed: the user chooses the plan or the request.
local CONFLICTS = {
    { field = "req_nodes", option = "--nodelist/-w" },
    { field = "exc_nodes", option = "--exclude/-x" },
    { field = "tres_per_job", option = "--gpus/-G", gpu = true },
    { field = "tres_per_task", option = "--gpus-per-task", gpu = true },
    { field = "tres_per_socket", option = "--gpus-per-socket", gpu = true },
}

-- The conflicting options of job_desc as one text ("--nodelist/-w 'n1', ..."),
-- or nil when there is none. An unset string field reads as nil (or "").
local function conflicts(job_desc)
    local found = {}
    for _, c in ipairs(CONFLICTS) do
        local v = job_desc[c.field]
        if type(v) == "string" and v ~= "" and (not c.gpu or v:find("gpu", 1, true)) then
            found[#found + 1] = c.option .. " " .. q(v)
        end
    end
    if #found == 0 then return nil end
    return table.concat(found, ", ")
end

local function describe(a)
    local s = "partition=" .. a.partition .. " nodes=" .. a.nodes ..
        " constraint=" .. a.features .. " gres=gpu:" .. a.gpus ..
        " requeue=" .. (a.spot and "yes" or "no") ..
        " time_limit_min=" .. (a.applied_limit or a.time_limit)
    if a.time_s then s = s .. " predicted_time_s=" .. a.time_s end
    if a.cost then s = s .. " predicted_cost_usd=" .. a.cost end
    return s
end


-- ------------------------------------------------------------------ serving plans
-- sbatch --slo-serve (doc/slurm.md, "Serving jobs"): SLO_KIND=serve. The
-- GRES is derived here from SLO_SERVE_PLAN, never taken from the plan: one
-- GPU -> gres:mps:<sum of the tenants' units>, G GPUs -> gres:gpu:G.
local SERVE_REQUIRED = { "SLO_PLAN_VERSION", "SLO_MODE", "SLO_KIND", "SLO_PARTITION",
                         "SLO_NODES", "SLO_CONSTRAINT", "SLO_GRES", "SLO_SERVE_GPUS",
                         "SLO_SERVE_TENANTS", "SLO_SERVE_PLAN" }

local function validate_serve(plan)
    local err = check_header(plan, SERVE_REQUIRED, "a serving plan, version 1")
    if err then
        return nil, err
    end
    local a = { mode = plan.SLO_MODE, serve = true }
    a.partition = plan.SLO_PARTITION
    a.kind = SITE.partitions[a.partition]
    if a.kind == nil or a.kind == "burst" then
        return nil, "SLO_PARTITION: expected one of " ..
            table.concat(sorted_keys(SITE.partitions), ", ") ..
            " (not burst: a serving job is one node), found " .. q(a.partition)
    end
    if plan.SLO_NODES ~= "1" then
        return nil, "SLO_NODES: expected 1 (a serving job is one node), found " ..
            q(plan.SLO_NODES)
    end
    a.nodes = 1
    if plan.SLO_CONSTRAINT ~= "" then
        local where = SITE.instance_types[plan.SLO_CONSTRAINT]
        if where == nil then
            return nil, unknown_type("SLO_CONSTRAINT", plan.SLO_CONSTRAINT)
        end
        if (a.kind == "onprem") ~= (where == "onprem") then
            return nil, "SLO_CONSTRAINT: " .. where .. " type " .. q(plan.SLO_CONSTRAINT) ..
                " does not belong in " .. a.kind .. " partition " .. q(a.partition)
        end
        a.features = plan.SLO_CONSTRAINT
    end
    a.gpus = posint(plan.SLO_SERVE_GPUS)
    if a.gpus == nil or a.gpus > SITE.max_gpus_per_node then
        return nil, "SLO_SERVE_GPUS: expected an integer 1.." .. SITE.max_gpus_per_node ..
            ", found " .. q(plan.SLO_SERVE_GPUS)
    end
    local plan_text = plan.SLO_SERVE_PLAN
    if #plan_text > 1024 then
        return nil, "SLO_SERVE_PLAN: longer than 1024 characters"
    end
    local per_gpu, n = {}, 0
    for item in (plan_text .. ","):gmatch("([^,]*),") do
        local m, g, b, u, r, t = item:match("^([%w%._%-]+):(%d+):(%d+):(%d+):(%d+%.?%d*):(%d+%.?%d*)$")
        local gpu, batch, units = tonumber(g), posint(b), posint(u)
        if m == nil or gpu == nil or batch == nil or units == nil or #g > 3 then
            return nil, "SLO_SERVE_PLAN: expected MODEL:GPU:BATCH:MPS:RATE:SLO[,...], found " ..
                q(item)
        end
        if gpu >= a.gpus then
            return nil, "SLO_SERVE_PLAN: tenant " .. q(item) .. " on GPU " .. gpu ..
                ", the plan has " .. a.gpus .. " (0.." .. (a.gpus - 1) .. ")"
        end
        if batch > 32 or units > SITE.mps_per_gpu or tonumber(r) <= 0 or tonumber(t) <= 0 then
            return nil, "SLO_SERVE_PLAN: tenant " .. q(item) .. ": expected batch 1..32, MPS 1.." ..
                SITE.mps_per_gpu .. ", rate and SLO > 0"
        end
        per_gpu[gpu] = (per_gpu[gpu] or 0) + units
        n = n + 1
    end
    if n > SITE.max_serve_tenants then
        return nil, "SLO_SERVE_PLAN: more than " .. SITE.max_serve_tenants .. " tenants"
    end
    if tostring(n) ~= plan.SLO_SERVE_TENANTS then
        return nil, "SLO_SERVE_TENANTS: expected " .. n .. " (tenants of SLO_SERVE_PLAN), found " ..
            q(plan.SLO_SERVE_TENANTS)
    end
    for g = 0, a.gpus - 1 do
        if per_gpu[g] == nil then
            return nil, "SLO_SERVE_PLAN: GPU " .. g .. " of " .. a.gpus .. " has no tenant"
        end
        if per_gpu[g] > SITE.mps_per_gpu then
            return nil, "SLO_SERVE_PLAN: the MPS shares of GPU " .. g .. " sum to " ..
                per_gpu[g] .. ", more than " .. SITE.mps_per_gpu
        end
    end
    if a.gpus == 1 then
        a.gres = "mps:" .. per_gpu[0]
    else
        a.gres = "gpu:" .. a.gpus
    end
    if plan.SLO_GRES ~= a.gres then
        return nil, "SLO_GRES: expected " .. q(a.gres) .. " (from SLO_SERVE_PLAN), found " ..
            q(plan.SLO_GRES)
    end
    if plan.SLO_PRICING ~= nil and plan.SLO_PRICING ~= "spot" and
       plan.SLO_PRICING ~= "on-demand" and plan.SLO_PRICING ~= "on-prem" then
        return nil, "SLO_PRICING: expected spot, on-demand or on-prem, found " ..
            q(plan.SLO_PRICING)
    end
    if plan.SLO_COST_USD_PER_H ~= nil and not plan.SLO_COST_USD_PER_H:match(NUMBER) then
        return nil, "SLO_COST_USD_PER_H: malformed value " .. q(plan.SLO_COST_USD_PER_H)
    end
    -- spot nodes are reclaimed: the job is requeued, as a training plan's
    a.spot = a.kind == "spot"
    a.tenants = n
    a.plan = plan_text
    a.cost_per_h = plan.SLO_COST_USD_PER_H
    return a
end

local function describe_serve(a)
    local s = "partition=" .. a.partition .. " nodes=1 gres=" .. a.gres ..
        " tenants=" .. a.tenants
    if a.features then s = s .. " constraint=" .. a.features end
    if a.spot then s = s .. " requeue=yes" end
    if a.cost_per_h then s = s .. " predicted_cost_usd_per_h=" .. a.cost_per_h end
    return s
end

-- Apply a validated serving plan to job_desc (after the conflict check).
local function apply_serve(job_desc, a, submit_uid)
    job_desc.partition = a.partition
    job_desc.min_nodes = 1
    job_desc.max_nodes = 1
    if a.features then job_desc.features = a.features end
    job_desc.tres_per_node = "gres:" .. a.gres
    -- one task per tenant unless the user asked for tasks
    if job_desc.num_tasks == nil or job_desc.num_tasks == slurm.NO_VAL or
       job_desc.num_tasks == 0 then
        job_desc.num_tasks = a.tenants
    end
    if a.spot then job_desc.requeue = 1 end
    job_desc.admin_comment = "slo-serve:" .. a.plan
    tell_user(PREFIX .. "request set by the SLO serving plan: " .. describe_serve(a))
    slurm.log_info("slo: uid %u: serving plan %s applied: %s", submit_uid, a.plan,
        describe_serve(a))
    return slurm.SUCCESS
end

-- ------------------------------------------------------------------ entry points
function slurm_job_submit(job_desc, part_list, submit_uid)
    local plan, err = read_plan(job_desc.spank_job_env)
    if plan == nil then
        tell_user(PREFIX .. "rejected: spank_job_env " .. err)
        slurm.log_info("slo: uid %u: rejected: %s", submit_uid, err)
        return slurm.ERROR
    end
    if plan.SLO_PLAN_VERSION == nil then
        return slurm.SUCCESS          -- no SLO requested: not ours
    end

    local a
    local serve = plan.SLO_KIND == "serve"
    if plan.SLO_KIND ~= nil and not serve then
        a, err = nil, "SLO_KIND: expected serve (or no SLO_KIND for a training plan), found " ..
            q(plan.SLO_KIND)
    elseif serve then
        a, err = validate_serve(plan)
    else
        a, err = validate(plan)
    end
    if plan.SLO_MODE == "advise" then
        -- advise changes nothing, whatever the plan says
        if a then
            tell_user(PREFIX .. "advise mode, request unchanged; the plan would set " ..
                (serve and describe_serve(a) or describe(a)))
        else
            tell_user(PREFIX .. "advise mode, request unchanged; plan not shown: " .. err)
        end
        return slurm.SUCCESS
    end
    if a == nil then
        tell_user(PREFIX .. "rejected: " .. err)
        slurm.log_info("slo: uid %u: rejected: %s", submit_uid, err)
        return slurm.ERROR
    end
    -- a heterogeneous job's components arrive one by one (het_job_offset
    -- 0, 1, ...; NO_VAL for a normal job), each with the same whole-job plan
    if job_desc.het_job_offset ~= nil and job_desc.het_job_offset ~= slurm.NO_VAL then
        tell_user(PREFIX .. "rejected: an SLO plan sizes the whole job; submit it " ..
            "as one job, not as a heterogeneous job (doc/slurm.md)")
        return slurm.ERROR
    end

    local conflict = conflicts(job_desc)
    if conflict then
        tell_user(PREFIX .. "rejected: " .. conflict .. " cannot be combined with an " ..
            "enforced SLO plan (the plan chooses the nodes and GPUs: " ..
            (serve and describe_serve(a) or describe(a)) ..
            "); drop the option, or keep it and add --slo-mode=advise")
        slurm.log_info("slo: uid %u: rejected: %s with an enforced plan", submit_uid, conflict)
        return slurm.ERROR
    end
    if serve then
        return apply_serve(job_desc, a, submit_uid)
    end

    job_desc.partition = a.partition
    job_desc.min_nodes = a.nodes
    job_desc.max_nodes = a.nodes
    job_desc.features = a.features
    job_desc.tres_per_node = "gres:gpu:" .. a.gpus
    if a.spot then
        job_desc.requeue = 1
    end
    -- the user's own --time is kept when it is shorter (it asks for less)
    local t = job_desc.time_limit
    if t == nil or t == slurm.NO_VAL or t == 0 or t > a.time_limit then
        job_desc.time_limit = a.time_limit
    end
    a.applied_limit = job_desc.time_limit
    -- the mark of an applied plan that users cannot set or change (only
    -- admins may write admin_comment): spank_slo.so exports the plan into
    -- the job as SLO_* only when the job record carries it
    job_desc.admin_comment = "slo-plan:" .. a.instances
    tell_user(PREFIX .. "request set by the SLO plan: " .. describe(a))
    slurm.log_info("slo: uid %u: plan %s applied: %s", submit_uid, a.instances, describe(a))
    return slurm.SUCCESS
end

-- What an enforced plan set (slurm_job_submit above) and the job_desc fields
-- through which scontrol update would change it (Slurm 22.05 names; an
-- unchanged field is nil/"" or NO_VAL). A value equal to the job's own is no
-- change; a shorter time limit asks for less and is allowed.
local PLANNED_STRINGS = {
    { field = "partition", what = "Partition" },
    { field = "features", what = "Features" },
    { field = "tres_per_node", what = "Gres/TresPerNode" },
    { field = "req_nodes", what = "NodeList" },
    { field = "exc_nodes", what = "ExcNodeList" },
    { field = "tres_per_job", what = "TresPerJob (--gpus)" },
    { field = "tres_per_task", what = "TresPerTask" },
    { field = "tres_per_socket", what = "TresPerSocket" },
    { field = "reservation", what = "Reservation" },
}

local function is_set(v)
    return v ~= nil and v ~= slurm.NO_VAL and v ~= 65534 and v ~= 4294967294
end

-- The fields of job_desc (a modification) that change what the enforced
-- plan set on job_rec, as one text, or nil.
local function plan_changes(job_desc, job_rec)
    local found = {}
    for _, c in ipairs(PLANNED_STRINGS) do
        local v = job_desc[c.field]
        if type(v) == "string" and v ~= "" and v ~= job_rec[c.field] then
            found[#found + 1] = c.what .. "=" .. q(v)
        end
    end
    for _, f in ipairs({ "min_nodes", "max_nodes" }) do
        local v = job_desc[f]
        if is_set(v) and v ~= job_rec.min_nodes and v ~= job_rec.max_nodes then
            found[#found + 1] = "NumNodes (" .. f .. "=" .. tostring(v) .. ")"
        end
    end
    local t = job_desc.time_limit
    if is_set(t) and (job_rec.time_limit == nil or t > job_rec.time_limit) then
        found[#found + 1] = "TimeLimit=" .. tostring(t) .. " min (the plan's limit is " ..
            tostring(job_rec.time_limit) .. " min)"
    end
    if job_desc.requeue == 0 then
        found[#found + 1] = "Requeue=0"
    end
    if #found == 0 then return nil end
    return table.concat(found, ", ")
end

-- scontrol update of a job: a job whose enforced plan was applied keeps what
-- the plan set, unless an admin (SITE.admin_uids) changes it. The plan is
-- the job's own spank_job_env (recorded at submission, validated by
-- slurm_job_submit); a user cannot add one afterwards.
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    local plan = read_plan(job_rec.spank_job_env)
    if plan == nil or plan.SLO_PLAN_VERSION == nil or plan.SLO_MODE ~= "enforce" then
        return slurm.SUCCESS          -- no enforced plan: not ours
    end
    local change = plan_changes(job_desc, job_rec)
    if change == nil then
        return slurm.SUCCESS
    end
    if SITE.admin_uids[modify_uid] then
        slurm.log_info("slo: uid %u: job %u: admin change of a planned job allowed: %s",
            modify_uid, job_rec.job_id, change)
        return slurm.SUCCESS
    end
    -- Slurm 22.05 shows no log_user text for a modification (scontrol prints
    -- "Access/permission denied"); the reason goes to slurmctld's log
    slurm.log_info("slo: uid %u: job %u: refused, changes what its enforced SLO plan set: %s",
        modify_uid, job_rec.job_id, change)
    tell_user(PREFIX .. "refused: " .. change .. " changes what the enforced SLO plan set " ..
        "(ask the site admin, or resubmit)")
    return ESLURM_ACCESS_DENIED
end

return slurm.SUCCESS
