-- SPDX-License-Identifier: BSD-3-Clause
-- Wireshark and tshark dissector for dcnfwd's fabric frames.
--
--   tshark -X lua_script:dcnfwd.lua -r capture.pcapng -V
--
-- or, for every capture, link it into Wireshark's personal plugin folder
-- (meson install puts it in PREFIX/share/dcnfwd/wireshark/):
--   mkdir -p ~/.local/lib/wireshark/plugins
--   ln -s /usr/local/share/dcnfwd/wireshark/dcnfwd.lua ~/.local/lib/wireshark/plugins/
--
-- A fabric frame is Ethernet (EtherType 0x88B5 unless the fabric's
-- configuration names another: Edit > Preferences > Protocols > DCN)
-- then the 20-byte fabric header, then its payload: the host's IPv4
-- packet (data), or a credit, hello or link-state payload. Under a fabric
-- key a control frame ends in a 24-byte trailer after its payload: the
-- writer's epoch and sequence number and a 16-byte keyed BLAKE2b tag.
-- With encap = udp the same frame travels in IPv4/UDP to the fabric's UDP
-- port (34997 unless the configuration names another: Preferences >
-- Protocols > DCN_UDP): the fabric header follows the UDP header. Each
-- frame's field dcn.encap says which format it came in ("ether" or
-- "udp"), and the protocol column reads DCN or DCN/UDP.
-- Formats: lib/fabric/dcn_fabric.h, lib/fabric/dcn_fabric_udp.h,
-- lib/fc/dcn_fc.h, lib/link/dcn_link.h, lib/auth/README.md.

local dcn = Proto("dcn", "dcnfwd fabric")
local dcn_udp = Proto("dcn_udp", "dcnfwd fabric in UDP (encap = udp)")

local TYPES = { [1] = "data", [2] = "credit", [3] = "hello", [4] = "link state" }
local PHASES = { [0] = "none", [1] = "1", [2] = "2", [3] = "3" }
local HDR_LEN = 20
local TRAILER_LEN = 24

local f = {
	encap     = ProtoField.string("dcn.encap", "Wire format (ether or udp)"),
	version   = ProtoField.uint8("dcn.version", "Version", base.DEC),
	type      = ProtoField.uint8("dcn.type", "Type", base.DEC, TYPES),
	vc        = ProtoField.uint8("dcn.vc", "Virtual channel", base.DEC),
	jumped    = ProtoField.bool("dcn.jumped", "Jump-over link taken (PORA)"),
	bounced   = ProtoField.bool("dcn.bounced",
		"Sent back to the relay it came from, by a relay with news"),
	phase     = ProtoField.uint8("dcn.phase", "PORA phase", base.DEC, PHASES),
	ttl       = ProtoField.uint8("dcn.ttl", "TTL", base.DEC),
	quadrant  = ProtoField.uint8("dcn.quadrant", "Quadrant (PORA)", base.HEX),
	path      = ProtoField.uint8("dcn.path", "Parallel path (RRect)", base.DEC),
	last_dim  = ProtoField.uint8("dcn.last_dim", "Last regular dimension", base.DEC),
	len       = ProtoField.uint16("dcn.len", "Payload length", base.DEC),
	src       = ProtoField.ipv4("dcn.src", "Source"),
	dst       = ProtoField.ipv4("dcn.dst", "Destination"),
	proxy     = ProtoField.ipv4("dcn.proxy", "Proxy"),
	-- credit
	c_epoch   = ProtoField.uint32("dcn.credit.epoch", "Receiver epoch", base.DEC),
	c_grant   = ProtoField.uint32("dcn.credit.grant", "Grant per VC", base.DEC),
	c_sepoch  = ProtoField.uint32("dcn.credit.sent_epoch", "Epoch of sent", base.DEC),
	c_flags   = ProtoField.uint32("dcn.credit.flags", "Flags", base.HEX),
	c_repairs = ProtoField.bool("dcn.credit.repairs", "Sender repairs lost frames", 32, nil, 1),
	c_vcs     = ProtoField.uint32("dcn.credit.vcs", "VCs", base.DEC),
	c_vc      = ProtoField.uint32("dcn.credit.vc", "VC", base.DEC),
	c_freed   = ProtoField.uint32("dcn.credit.freed", "Freed", base.DEC),
	c_arrived = ProtoField.uint32("dcn.credit.arrived", "Arrived", base.DEC),
	c_sent    = ProtoField.uint32("dcn.credit.sent", "Sent toward the peer", base.DEC),
	-- hello
	h_addr    = ProtoField.ipv4("dcn.hello.addr", "Sender"),
	h_port    = ProtoField.uint16("dcn.hello.port", "Sender's port", base.DEC),
	h_ivl     = ProtoField.uint16("dcn.hello.interval", "Interval (ms)", base.DEC),
	h_topo    = ProtoField.uint32("dcn.hello.topo_hash", "Topology hash", base.HEX),
	h_seq     = ProtoField.uint32("dcn.hello.seq", "Sequence", base.DEC),
	h_echo    = ProtoField.ipv4("dcn.hello.echo.addr", "Echo for"),
	h_echo_e  = ProtoField.uint32("dcn.hello.echo.epoch", "Its epoch heard", base.HEX),
	h_echo_s  = ProtoField.uint32("dcn.hello.echo.seq", "Its sequence heard", base.DEC),
	-- link state
	l_origin  = ProtoField.ipv4("dcn.lsa.origin", "Origin"),
	l_epoch   = ProtoField.uint32("dcn.lsa.epoch", "Origin epoch", base.DEC),
	l_seq     = ProtoField.uint32("dcn.lsa.seq", "Sequence", base.DEC),
	l_hops    = ProtoField.uint8("dcn.lsa.hops", "Relays left", base.DEC),
	l_n       = ProtoField.uint8("dcn.lsa.links", "Links down", base.DEC),
	l_addr    = ProtoField.ipv4("dcn.lsa.link.addr", "Link end"),
	l_port    = ProtoField.uint16("dcn.lsa.link.port", "Port", base.DEC),
	-- fabric key trailer
	t_epoch   = ProtoField.uint32("dcn.auth.epoch", "Writer epoch", base.DEC),
	t_seq     = ProtoField.uint32("dcn.auth.seq", "Writer sequence", base.DEC),
	t_tag     = ProtoField.bytes("dcn.auth.tag", "Tag (keyed BLAKE2b-128)"),
}
dcn.fields = {}
for _, v in pairs(f) do table.insert(dcn.fields, v) end

local e_short = ProtoExpert.new("dcn.short", "Shorter than its fabric header or payload",
	expert.group.MALFORMED, expert.severity.ERROR)
dcn.experts = { e_short }

dcn.prefs.ethertype = Pref.uint("EtherType", 0x88B5,
	"The fabric's EtherType ([fabric] ethertype in dcnfwd's configuration)")
dcn_udp.prefs.port = Pref.uint("UDP port", 34997,
	"The fabric's UDP port ([fabric] udp_port in dcnfwd's configuration)")

local ipv4 = Dissector.get("ip")

local function credit(buf, tree, len)
	tree:add(f.c_epoch, buf(0, 4))
	tree:add(f.c_grant, buf(4, 4))
	tree:add(f.c_sepoch, buf(8, 4))
	local fl = tree:add(f.c_flags, buf(12, 4))
	fl:add(f.c_repairs, buf(12, 4))
	local n = math.floor((len - 16) / 12)
	tree:add(f.c_vcs, n):set_generated()
	for vc = 0, n - 1 do
		local t = tree:add(dcn, buf(16 + 4 * vc, 4), "VC " .. vc)
		t:set_text(string.format("VC %d: freed %d, arrived %d, sent %d", vc,
			buf(16 + 4 * vc, 4):uint(), buf(16 + 4 * (n + vc), 4):uint(),
			buf(16 + 4 * (2 * n + vc), 4):uint()))
		t:add(f.c_vc, vc):set_generated()
		t:add(f.c_freed, buf(16 + 4 * vc, 4))
		t:add(f.c_arrived, buf(16 + 4 * (n + vc), 4))
		t:add(f.c_sent, buf(16 + 4 * (2 * n + vc), 4))
	end
	return string.format("grant %d, %d VC%s", buf(4, 4):uint(), n, n == 1 and "" or "s")
end

-- With a fabric key, 12-byte echoes follow: each neighbour heard behind
-- the port, and the epoch and sequence last heard from it.
local function hello(buf, tree, len)
	tree:add(f.h_addr, buf(0, 4))
	tree:add(f.h_port, buf(4, 2))
	tree:add(f.h_ivl, buf(6, 2))
	tree:add(f.h_topo, buf(8, 4))
	tree:add(f.h_seq, buf(12, 4))
	local o = 16
	while o + 12 <= len do
		local e = tree:add(buf(o, 12), "Echo")
		e:add(f.h_echo, buf(o, 4))
		e:add(f.h_echo_e, buf(o + 4, 4))
		e:add(f.h_echo_s, buf(o + 8, 4))
		o = o + 12
	end
	return string.format("from %s port %d", tostring(buf(0, 4):ipv4()), buf(4, 2):uint())
end

local function linkstate(buf, tree, len)
	tree:add(f.l_origin, buf(0, 4))
	tree:add(f.l_epoch, buf(4, 4))
	tree:add(f.l_seq, buf(8, 4))
	tree:add(f.l_hops, buf(12, 1))
	tree:add(f.l_n, buf(13, 1))
	local n = buf(13, 1):uint()
	for i = 0, n - 1 do
		if 16 + 8 * i + 8 > len then break end
		local e = buf(16 + 8 * i, 8)
		local t = tree:add(dcn, e, string.format("Link down: %s port %d",
			tostring(e(0, 4):ipv4()), e(4, 2):uint()))
		t:add(f.l_addr, e(0, 4))
		t:add(f.l_port, e(4, 2))
	end
	return string.format("from %s, %d link%s down", tostring(buf(0, 4):ipv4()),
		n, n == 1 and "" or "s")
end

-- A fabric frame from its fabric header on; encap: the format it came in.
local function dissect(buf, pinfo, root, encap)
	if buf:len() < HDR_LEN then
		root:add_proto_expert_info(e_short)
		return 0
	end
	pinfo.cols.protocol = encap == "udp" and "DCN/UDP" or "DCN"
	local tree = root:add(dcn, buf(0, HDR_LEN))
	tree:add(f.encap, encap):set_generated()
	local b0, b1 = buf(0, 1):uint(), buf(1, 1):uint()
	local ftype = b0 % 16
	local vc = (b1 % 2) + 2 * (math.floor(b1 / 16) % 8)
	tree:add(f.version, buf(0, 1), math.floor(b0 / 16))
	tree:add(f.type, buf(0, 1), ftype)
	tree:add(f.vc, buf(1, 1), vc)
	tree:add(f.jumped, buf(1, 1), math.floor(b1 / 2) % 2 == 1)
	tree:add(f.phase, buf(1, 1), math.floor(b1 / 4) % 4)
	tree:add(f.bounced, buf(1, 1), b1 >= 128)
	tree:add(f.ttl, buf(2, 1))
	tree:add(f.quadrant, buf(3, 1))
	tree:add(f.path, buf(4, 1))
	tree:add(f.last_dim, buf(5, 1))
	tree:add(f.len, buf(6, 2))
	tree:add(f.src, buf(8, 4))
	tree:add(f.dst, buf(12, 4))
	tree:add(f.proxy, buf(16, 4))
	local len = buf(6, 2):uint()
	local name = TYPES[ftype] or ("type " .. ftype)
	tree:append_text(string.format(", %s, VC %d, TTL %d, %s -> %s", name, vc,
		buf(2, 1):uint(), tostring(buf(8, 4):ipv4()), tostring(buf(12, 4):ipv4())))
	if buf:len() < HDR_LEN + len then
		tree:add_proto_expert_info(e_short)
		return buf:len()
	end
	local pl = buf(HDR_LEN, len)
	local info
	if ftype == 1 then
		ipv4:call(pl:tvb(), pinfo, root)
		pinfo.cols.info:prepend(string.format("DCN data VC %d TTL %d | ", vc,
			buf(2, 1):uint()))
		return HDR_LEN + len
	end
	local pt = tree:add(dcn, pl, "DCN " .. name)
	if ftype == 2 and len >= 28 then
		info = credit(pl, pt, len)
	elseif ftype == 3 and len >= 16 then
		info = hello(pl, pt, len)
	elseif ftype == 4 and len >= 16 then
		info = linkstate(pl, pt, len)
	else
		pt:add_proto_expert_info(e_short)
	end
	pinfo.cols.info = (encap == "udp" and "DCN/UDP " or "DCN ") .. name ..
		(info and (": " .. info) or "")
	local used = HDR_LEN + len
	if buf:len() >= used + TRAILER_LEN then
		local t = tree:add(dcn, buf(used, TRAILER_LEN), "Fabric key trailer")
		t:add(f.t_epoch, buf(used, 4))
		t:add(f.t_seq, buf(used + 4, 4))
		t:add(f.t_tag, buf(used + 8, 16))
		used = used + TRAILER_LEN
	end
	return used
end

function dcn.dissector(buf, pinfo, root)
	return dissect(buf, pinfo, root, "ether")
end

function dcn_udp.dissector(buf, pinfo, root)
	return dissect(buf, pinfo, root, "udp")
end

-- proto under key in table, in place of old (its preference changed).
local function register(table, old, key, proto)
	local t = DissectorTable.get(table)
	if old then t:remove(old, proto) end
	t:add(key, proto)
	return key
end
local registered = register("ethertype", nil, 0x88B5, dcn)
local registered_udp = register("udp.port", nil, 34997, dcn_udp)
function dcn.init()
	registered = register("ethertype", registered, dcn.prefs.ethertype, dcn)
end
function dcn_udp.init()
	registered_udp = register("udp.port", registered_udp, dcn_udp.prefs.port, dcn_udp)
end
