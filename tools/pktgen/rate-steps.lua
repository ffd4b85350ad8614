-- SPDX-License-Identifier: BSD-3-Clause
-- Rate and size steps against a dcnfwd relay: pktgen port 0 sends into
-- the relay, port 1 receives what the relay sends back; for each frame
-- size and each rate, one step, then the frames sent and received as a
-- CSV row.
--
-- A step sends DCN_COUNT frames (pktgen's "count") and ends when pktgen
-- says it has sent them all: every step offers the same frames however
-- busy the machine, which is what a test accounts for. Without
-- DCN_COUNT a step sends for DCN_STEP_MS instead, for rate figures on a
-- real NIC. Either way the counters are read once what is in flight has
-- arrived and pktgen has refreshed them (it does so once a second), and
-- a step that sent nothing (a port not yet sending after set-up) is run
-- again, at most twice, and says so.
--
-- Traffic: with DCN_FLOWS set, host IPv4/UDP in range mode over the
-- addresses of a Lua table made by "dcn-pktgen flows-lua SPEC RELAY"; with
-- DCN_PCAP=1, the pcap pktgen was started with (-s 0:FILE, made by
-- "dcn-pktgen pcap"), whose frame sizes are its own.
--
--   DCN_FLOWS=flows.lua pktgen ... -f tools/pktgen/rate-steps.lua
-- Settings (environment): DCN_SIZES "64,128,256,512,1024,1518",
-- DCN_RATES "10,25,50,75,100" (percent of line rate), DCN_COUNT frames a
-- step, DCN_STEP_MS 2000 (a timed step's length; with DCN_COUNT, how
-- long a step may take at most), DCN_QUIT 1 to leave pktgen at the end,
-- DCN_CSV FILE to write the rows to FILE too (pktgen's screen redraws
-- over its console), DCN_STEP_HOOK a command run before each step and
-- after it with two arguments, the step's number and "pre" or "post"
-- (tools/pktgen/pktgen-relay reads the relay's counters there).

package.path = package.path .. ";?.lua;test/?.lua;app/?.lua;"
-- pktgen's own helpers (Pktgen.lua) load when pktgen runs in its tree;
-- elsewhere printf is ours.
if not pcall(require, "Pktgen") then
  function printf(...) io.write(string.format(...)); io.flush() end
end

local function list(s, default)
  local out = {}
  for v in string.gmatch(s or default, "[^,]+") do
    out[#out + 1] = tonumber(v)
  end
  return out
end

local sizes = list(os.getenv("DCN_SIZES"), "64,128,256,512,1024,1518")
local rates = list(os.getenv("DCN_RATES"), "10,25,50,75,100")
local count = tonumber(os.getenv("DCN_COUNT") or "0")
local step_ms = tonumber(os.getenv("DCN_STEP_MS") or "2000")
local hook = os.getenv("DCN_STEP_HOOK")
local pcap = os.getenv("DCN_PCAP") == "1"
local flows_file = os.getenv("DCN_FLOWS")

pktgen.stop("all")
if pcap then
  sizes = { 0 }                       -- the pcap's own sizes
  pktgen.pcap("0", "on")
elseif flows_file then
  local f = dofile(flows_file)
  pktgen.set_proto("0", "udp")
  pktgen.range.ip_proto("0", "udp")
  pktgen.range.src_ip("0", "start", f.src)
  pktgen.range.src_ip("0", "min", f.src)
  pktgen.range.src_ip("0", "max", f.src)
  pktgen.range.src_ip("0", "inc", "0.0.0.0")
  pktgen.range.dst_ip("0", "start", f.dst_start)
  pktgen.range.dst_ip("0", "min", f.dst_start)
  pktgen.range.dst_ip("0", "max", f.dst_max)
  pktgen.range.dst_ip("0", "inc", f.dst_inc)
  pktgen.range.src_port("0", "start", 1024)
  pktgen.range.src_port("0", "min", 1024)
  pktgen.range.src_port("0", "max", 1087)
  pktgen.range.src_port("0", "inc", 1)
  pktgen.set_range("0", "on")
  printf("flows: %d addresses %s .. %s by %s\n", f.count, f.dst_start,
         f.dst_max, f.dst_inc)
else
  printf("rate-steps.lua: set DCN_FLOWS=FILE (dcn-pktgen flows-lua) or DCN_PCAP=1\n")
  return
end

local csv = os.getenv("DCN_CSV") and io.open(os.getenv("DCN_CSV"), "w")
local function row(fmt, ...)
  printf(fmt, ...)
  if csv then csv:write(string.format(fmt, ...)); csv:flush() end
end

local function run_hook(step, when)
  if hook then
    os.execute(string.format("%s %d %s", hook, step, when))
  end
end

-- A memif or af_packet port comes up some time after pktgen starts its
-- script: a step started before that sends nothing. Wait (10 s at most).
for _ = 1, 100 do
  local ls = pktgen.linkState("0-1")
  if string.find(ls[0] or "", "UP") and string.find(ls[1] or "", "UP") then
    break
  end
  pktgen.delay(100)
end

-- One step's sending: until pktgen has sent the count (or for step_ms).
-- Returns the port counters and about how long it sent, in ms.
local function send()
  local waited = step_ms
  pktgen.clr()
  pktgen.start("0")
  if count > 0 then
    waited = 0
    while pktgen.isSending("0")[0] == "y" and waited < step_ms do
      pktgen.delay(10)
      waited = waited + 10
    end
  else
    pktgen.delay(step_ms)
  end
  pktgen.stop("0")
  -- What is in flight arrives, and pktgen refreshes the port counters
  -- it reports (once a second) after the step.
  pktgen.delay(1300)
  return pktgen.portStats("all", "port"), math.max(waited, 10)
end

-- The first start after set-up sends nothing on memif ports (links up):
-- a short run that is not counted comes first.
pktgen.set("0", "count", count > 0 and math.min(count, 256) or 0)
pktgen.set("0", "rate", 1)
pktgen.start("0")
pktgen.delay(300)
pktgen.stop("0")
pktgen.delay(500)
pktgen.set("0", "count", count)

row("step,size,rate_pct,sent,received,rx_missed,send_ms,tries\n")
local step = 0
for _, size in ipairs(sizes) do
  for _, rate in ipairs(rates) do
    step = step + 1
    if size > 0 then
      pktgen.set("0", "size", size)
      pktgen.range.pkt_size("0", "start", size)
      pktgen.range.pkt_size("0", "min", size)
      pktgen.range.pkt_size("0", "max", size)
      pktgen.range.pkt_size("0", "inc", 0)
    end
    pktgen.set("0", "rate", rate)
    pktgen.delay(100)
    local st, ms
    local tries = 0
    repeat
      tries = tries + 1
      if tries > 1 then
        printf("step %d (size %d, rate %g%%) sent nothing: again\n", step,
               size, rate)
      end
      run_hook(step, "pre")
      st, ms = send()
      run_hook(step, "post")
    until st[0].opackets > 0 or tries == 3
    row("%d,%d,%g,%d,%d,%d,%d,%d\n", step, size, rate, st[0].opackets,
        st[1].ipackets, st[1].imissed, ms, tries)
  end
end
if csv then csv:close() end
if os.getenv("DCN_QUIT") == "1" then
  pktgen.quit()
end
