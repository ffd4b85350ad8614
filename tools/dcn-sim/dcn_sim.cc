/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-sim: a fabric in simulated time (ns-3's scheduler and random
 * streams), every hop decided by the relays' own step (sim_fabric.c over
 * lib/route and lib/fwd). This layer is the ns-3 side alone: links
 * (rate, propagation delay, serialisation), a node's processing time,
 * the traffic's arrivals, and the figures.
 *
 * Links are full duplex, one FIFO an output port, as the NovaCube paper's
 * NS-3 point-to-point links; a node processes one frame at a time, each
 * for --proc-us (the paper's 1.5 us), an L2 switch none (store and
 * forward at its line rate). Traffic stops at --time-ms; the figures are
 * of that window (what is still on the way then is in_flight).
 */
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include <unistd.h>

#include <ns3/core-module.h>
#include <ns3/pcap-file-wrapper.h>

#include <rte_eal.h>
#include <rte_log.h>

#include "sim_fabric.h"
#include "sim_options.h"

using namespace ns3;

namespace {


struct OutPort {
	std::deque<struct rte_mbuf *> q;
	bool busy = false;
	Ptr<PcapFileWrapper> pcap;  /* what leaves on the wire, when captured */
};

struct Vertex {
	std::vector<OutPort> out;
	Time cpu_free;
};

struct Stats {
	uint64_t sent = 0, sent_bytes = 0, delivered = 0, delivered_bytes = 0;
	uint64_t hops = 0, link_down = 0, no_mbuf = 0, foreign = 0, hop_events = 0;
	uint64_t queue_full = 0, switch_full = 0;
	std::vector<uint64_t> lat_ps;
};

class Sim {
public:
	Sim(const Options &o, struct sim_fabric *f);
	void Run();
	void Report(double wall_s);
	int OpenPcaps();

private:
	void Arrive(uint32_t v, uint16_t port, struct rte_mbuf *m);
	void Process(uint32_t v, uint16_t port, struct rte_mbuf *m);
	void Enqueue(uint32_t v, uint16_t port, struct rte_mbuf *m);
	void StartTx(uint32_t v, uint16_t port);
	void Deliver(uint32_t v, struct rte_mbuf *m);
	void Outputs(uint32_t v, const struct sim_out *out, unsigned int n);
	void Tick(uint32_t v);
	void Send(uint32_t s);
	Time NextGap(uint32_t s);
	uint32_t PickDst(uint32_t s);

	const Options &o;
	struct sim_fabric *f;
	std::vector<Vertex> vx;
	std::vector<uint32_t> server_of_vertex, partner;
	std::vector<uint32_t> seq, rr;
	Ptr<UniformRandomVariable> uni;
	Ptr<ExponentialRandomVariable> expo;
	Ptr<WeibullRandomVariable> weib;
	Time gap, proc, delay, stop, tick;
	struct sim_out outs[SIM_OUT_MAX];
	double ps_per_byte;
	Stats st;
	/* --paths: each frame's (vertex, port) it left by, so far */
	std::unordered_map<struct rte_mbuf *, std::vector<std::pair<uint32_t, uint16_t>>> path;
};

Sim::Sim(const Options &opt, struct sim_fabric *fab) : o(opt), f(fab)
{
	uint32_t V = sim_vertices(f), n = sim_servers(f), s;

	vx.resize(V);
	for (uint32_t v = 0; v < V; v++)
		vx[v].out.resize(sim_vertex_ports(f, v));
	server_of_vertex.assign(V, UINT32_MAX);
	for (s = 0; s < n; s++)
		server_of_vertex[sim_server_vertex(f, s)] = s;
	seq.assign(n * (size_t)n > 1u << 24 ? n : n * (size_t)n, 0);
	rr.assign(n, 0);
	uni = CreateObject<UniformRandomVariable>();
	uni->SetStream(1);
	expo = CreateObject<ExponentialRandomVariable>();
	expo->SetStream(2);
	weib = CreateObject<WeibullRandomVariable>();
	weib->SetStream(3);
	ps_per_byte = 8000.0 / o.link_gbps;
	/* A frame every gap at load of the line rate. */
	gap = PicoSeconds((int64_t)std::llround(o.mtu * ps_per_byte / o.load));
	proc = PicoSeconds((int64_t)std::llround(o.proc_us * 1e6));
	delay = PicoSeconds((int64_t)std::llround(o.delay_us * 1e6));
	stop = PicoSeconds((int64_t)std::llround(o.time_ms * 1e9));
	tick = PicoSeconds((int64_t)std::llround(o.fcc.credit_refresh_us * 1e6));
	/* Permutation: a random derangement; pairs: servers matched at
	 * random, each sending to its partner. */
	partner.resize(n);
	for (s = 0; s < n; s++)
		partner[s] = s;
	for (s = n - 1; s > 0; s--)
		std::swap(partner[s], partner[uni->GetInteger(0, s)]);
	if (o.traffic == "pairs") {
		std::vector<uint32_t> order = partner;

		for (s = 0; s + 1 < n; s += 2) {
			partner[order[s]] = order[s + 1];
			partner[order[s + 1]] = order[s];
		}
		if (n % 2)
			partner[order[n - 1]] = order[0];
	} else {
		/* shift a cycle through the shuffled order: no fixed point */
		std::vector<uint32_t> order = partner;

		for (s = 0; s < n; s++)
			partner[order[s]] = order[(s + 1) % n];
	}
}

Time
Sim::NextGap(uint32_t s)
{
	(void)s;
	if (o.arrival == "constant")
		return gap;
	if (o.arrival == "poisson")
		return PicoSeconds((int64_t)std::llround(
			expo->GetValue((double)gap.GetPicoSeconds(), 0)));
	/* Weibull of the shape asked, scaled to the mean gap */
	double scale = (double)gap.GetPicoSeconds() / std::tgamma(1 + 1 / o.weibull_shape);

	return PicoSeconds((int64_t)std::llround(weib->GetValue(scale, o.weibull_shape, 0)));
}

uint32_t
Sim::PickDst(uint32_t s)
{
	uint32_t n = sim_servers(f), d;

	if (o.traffic == "uniform") {
		d = uni->GetInteger(0, n - 2);
		return d >= s ? d + 1 : d;
	}
	if (o.traffic == "all-to-all") {
		d = rr[s] = (rr[s] + 1) % n;
		if (d == s)
			d = rr[s] = (rr[s] + 1) % n;
		return d;
	}
	if (o.traffic == "incast")
		return 0;
	return partner[s];
}

void
Sim::Send(uint32_t s)
{
	if (Simulator::Now() >= stop)
		return;
	uint32_t n = sim_servers(f), d = PickDst(s);
	struct sim_stamp stp;

	stp.sent_ps = (uint64_t)Simulator::Now().GetPicoSeconds();
	stp.flow = s * n + d;
	stp.seq = seq[stp.flow % seq.size()]++;
	stp.hops = 0;
	/* a pair's own flow, its own source port */
	struct rte_mbuf *m = sim_frame(f, s, d, (uint16_t)o.mtu + 14,
				       (uint16_t)(1024 + stp.flow % 60000), &stp);

	if (m == NULL) {
		st.no_mbuf++;
	} else {
		st.sent++;
		st.sent_bytes += sim_frame_len(m);
		if (o.paths)
			path[m] = {};
		Arrive(sim_server_vertex(f, s), SIM_PORT_HOST, m);
	}
	Simulator::Schedule(NextGap(s), &Sim::Send, this, s);
}

/* A frame reaches vertex v: it waits for the node's processor. */
void
Sim::Arrive(uint32_t v, uint16_t port, struct rte_mbuf *m)
{
	Time now = Simulator::Now();

	if (sim_vertex_kind(f, v) != SIM_RELAY) {
		Process(v, port, m);
		return;
	}
	Vertex &x = vx[v];
	Time start = std::max(now, x.cpu_free);

	x.cpu_free = start + proc;
	Simulator::Schedule(x.cpu_free - now, &Sim::Process, this, v, port, m);
}

void
Sim::Process(uint32_t v, uint16_t port, struct rte_mbuf *m)
{
	struct sim_out out;

	st.hop_events++;
	if (sim_queued_relay(f, v)) {
		unsigned int n = sim_arrive(f, v, port, m,
					    (uint64_t)Simulator::Now().GetPicoSeconds(), outs);

		Outputs(v, outs, n);
		return;
	}
	if (sim_arrive(f, v, port, m, (uint64_t)Simulator::Now().GetPicoSeconds(), &out) == 0) {
		if (o.paths)
			path.erase(m);
		return;
	}
	if (out.port == SIM_PORT_HOST)
		Deliver(v, out.m);
	else
		Enqueue(v, out.port, out.m);
}

/* What a relay with flow control did: frames delivered to its server,
 * and ports whose TX rings now hold frames start sending if idle. */
void
Sim::Outputs(uint32_t v, const struct sim_out *out, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		Deliver(v, out[i].m);
	for (uint16_t p = 0; p < vx[v].out.size(); p++)
		if (!vx[v].out[p].busy && sim_port_waiting(f, v, p))
			StartTx(v, p);
}

/* A relay's loop passes even when no frame comes: credits refreshed,
 * queues served. */
void
Sim::Tick(uint32_t v)
{
	unsigned int n = sim_tick(f, v, (uint64_t)Simulator::Now().GetPicoSeconds(), outs);

	Outputs(v, outs, n);
	Simulator::Schedule(tick, &Sim::Tick, this, v);
}

void
Sim::Enqueue(uint32_t v, uint16_t port, struct rte_mbuf *m)
{
	OutPort &p = vx[v].out[port];
	/* A switch's port buffer, or a relay's output queue without flow
	 * control: full, the frame is dropped (tail drop). */
	bool sw = sim_vertex_kind(f, v) == SIM_SWITCH;

	if (p.q.size() >= (sw ? o.switch_buffer : o.fcc.out_queue)) {
		(sw ? st.switch_full : st.queue_full)++;
		if (o.paths)
			path.erase(m);
		sim_frame_free(m);
		return;
	}
	p.q.push_back(m);
	if (!p.busy)
		StartTx(v, port);
}

void
Sim::StartTx(uint32_t v, uint16_t port)
{
	OutPort &p = vx[v].out[port];
	struct rte_mbuf *m;

	if (sim_queued_relay(f, v)) {
		m = sim_port_pull(f, v, port, (uint64_t)Simulator::Now().GetPicoSeconds());
		if (m == NULL) {
			p.busy = false;
			return;
		}
	} else {
		if (p.q.empty()) {
			p.busy = false;
			return;
		}
		m = p.q.front();
		p.q.pop_front();
	}
	uint16_t peer_port = 0;
	int64_t peer = sim_port_peer(f, v, port, &peer_port);
	Time tx = PicoSeconds((int64_t)std::llround(sim_frame_len(m) * ps_per_byte));

	p.busy = true;
	Simulator::Schedule(tx, &Sim::StartTx, this, v, port);
	if (peer < 0) {
		st.link_down++;
		if (o.paths)
			path.erase(m);
		sim_frame_free(m);
		return;
	}
	sim_frame_hop(m);
	if (o.paths) {
		auto it = path.find(m);

		if (it != path.end())
			it->second.push_back({ v, port });
	}
	if (p.pcap)
		p.pcap->Write(Simulator::Now(), sim_frame_data(m), sim_frame_len(m));
	Simulator::Schedule(tx + delay, &Sim::Arrive, this, (uint32_t)peer, peer_port, m);
}

void
Sim::Deliver(uint32_t v, struct rte_mbuf *m)
{
	struct sim_stamp stp;
	uint32_t n = sim_servers(f);

	if (sim_frame_stamp(m, &stp) != 0 || stp.flow % n != server_of_vertex[v]) {
		st.foreign++;
	} else if (Simulator::Now() <= stop) {
		st.delivered++;
		st.delivered_bytes += sim_frame_len(m);
		st.hops += stp.hops;
		st.lat_ps.push_back((uint64_t)Simulator::Now().GetPicoSeconds() - stp.sent_ps);
	}
	if (o.paths) {
		auto it = path.find(m);

		if (it != path.end()) {
			std::string line = std::string(sim_vertex_name(f, sim_server_vertex(f, stp.flow / n))) +
					   " " + sim_vertex_name(f, v) + ":";
			for (auto &h : it->second)
				line += std::string(" ") + sim_vertex_name(f, h.first) + ":" +
					std::to_string(h.second);
			printf("path %s %s\n", line.c_str(), sim_vertex_name(f, v));
			path.erase(it);
		}
	}
	sim_frame_free(m);
}

/* --pcap PREFIX: a pcap file (Ethernet) of what each port of the
 * vertices asked for puts on its wire, PREFIX-VERTEX-PORT.pcap (VERTEX
 * its index, dcn-topo's #N), in simulated time. @return 0, or -1 with a
 * vertex not found. */
int
Sim::OpenPcaps()
{
	std::vector<uint32_t> vs;
	std::string names = o.pcap_vertices;

	if (names.empty())
		vs.push_back(sim_server_vertex(f, 0));
	for (size_t at = 0; !names.empty() && at <= names.size();) {
		size_t end = names.find(';', at);
		std::string name = names.substr(at, end == std::string::npos ? std::string::npos
									 : end - at);
		int64_t v = sim_vertex_by_name(f, name.c_str());

		if (v < 0) {
			fprintf(stderr, "dcn-sim: --pcap-vertex %s: no such vertex in %s\n",
				name.c_str(), sim_fabric_spec(f));
			return -1;
		}
		vs.push_back((uint32_t)v);
		if (end == std::string::npos)
			break;
		at = end + 1;
	}
	for (uint32_t v : vs)
		for (uint16_t p = 0; p < vx[v].out.size(); p++) {
			std::string file = o.pcap + "-" + std::to_string(v) + "-" +
					   std::to_string(p) + ".pcap";

			vx[v].out[p].pcap = CreateObject<PcapFileWrapper>();
			vx[v].out[p].pcap->Open(file, std::ios::out | std::ios::binary);
			vx[v].out[p].pcap->Init(1 /* DLT_EN10MB */, 65535);
			if (vx[v].out[p].pcap->Fail()) {
				fprintf(stderr, "dcn-sim: --pcap: cannot write %s\n", file.c_str());
				return -1;
			}
		}
	return 0;
}

void
Sim::Run()
{
	uint32_t n = sim_servers(f), s;

	for (uint32_t v = 0; v < sim_vertices(f); v++)
		if (sim_queued_relay(f, v))
			Simulator::Schedule(Seconds(0), &Sim::Tick, this, v);
	if (o.paths) {
		/* One frame a pair, each alone in the fabric. */
		Time t = Seconds(0);
		Time apart = PicoSeconds(1000000000);  /* 1 ms */

		for (s = 0; s < n; s++)
			for (uint32_t d = 0; d < n; d++) {
				if (d == s)
					continue;
				Simulator::Schedule(t, [this, s, d, n]() {
					struct sim_stamp stp = { (uint64_t)Simulator::Now().GetPicoSeconds(),
								 s * n + d, 0, 0 };
					/* the emulation's --pairs flow for d */
					struct rte_mbuf *m = sim_frame(f, s, d, 128,
								       (uint16_t)(4000 + d), &stp);

					if (m == NULL)
						return;
					path[m] = {};
					st.sent++;
					Arrive(sim_server_vertex(f, s), SIM_PORT_HOST, m);
				});
				t += apart;
			}
		stop = t;
		Simulator::Stop(stop);
		Simulator::Run();
		return;
	}
	for (s = 0; s < n; s++) {
		if (o.traffic == "incast" && (s == 0 || s > o.incast))
			continue;
		/* each server starts at a random point of its first gap */
		Simulator::Schedule(PicoSeconds((int64_t)uni->GetInteger(
					    0, (uint32_t)std::min<int64_t>(gap.GetPicoSeconds(), UINT32_MAX - 1))),
				    &Sim::Send, this, s);
	}
	Simulator::Stop(stop);
	Simulator::Run();
}

double
pct(std::vector<uint64_t> &v, double q)
{
	if (v.empty())
		return 0;
	size_t k = (size_t)std::min<double>(v.size() - 1, std::floor(q * (v.size() - 1) + 0.5));

	return v[k] / 1e6;
}

void
Sim::Report(double wall_s)
{
	uint32_t n = sim_servers(f);
	double secs = o.time_ms / 1e3, mean = 0;
	uint64_t dropped = 0, in_flight;
	std::string reasons;

	std::sort(st.lat_ps.begin(), st.lat_ps.end());
	for (uint64_t l : st.lat_ps)
		mean += (double)l;
	mean = st.lat_ps.empty() ? 0 : mean / (double)st.lat_ps.size() / 1e6;
	struct sim_fc_totals fc;
	/* Every way a frame was lost, as the relays name them, and the
	 * frames a dry pool kept a server from sending (not lost: never
	 * sent). */
	struct Loss {
		std::string name;
		uint64_t n;
		bool lost;
	};
	std::vector<Loss> losses;

	sim_fc_totals(f, &fc);
	for (unsigned int r = 1; r < sim_drop_reasons(); r++)
		losses.push_back({ sim_drop_name(r), sim_drops(f, r), true });
	losses.push_back({ "switch_unknown_dst", sim_switch_drops(f), true });
	losses.push_back({ "link_down", st.link_down, true });
	losses.push_back({ "queue_full", st.queue_full, true });
	losses.push_back({ "switch_full", st.switch_full, true });
	losses.push_back({ "not_sent_no_mbuf", st.no_mbuf, false });
	losses.push_back({ "host_in_full", fc.refused, true });
	for (const Loss &l : losses) {
		if (l.n == 0)
			continue;
		if (l.lost)
			dropped += l.n;
		reasons += std::string(reasons.empty() ? "" : ", ") + "\"" + l.name + "\": " +
			   std::to_string(l.n);
	}
	in_flight = st.sent - st.delivered - dropped - st.foreign;
	double senders = o.traffic == "incast" ? std::min<double>(o.incast, n - 1) : n;
	double offered = senders * o.load * o.link_gbps;
	double thr = (double)st.delivered_bytes * 8 / secs / 1e9;
	double apl = st.delivered ? (double)st.hops / (double)st.delivered : 0;

	if (o.json) {
		printf("{\"spec\": \"%s\", \"servers\": %u, \"traffic\": \"%s\", \"arrival\": \"%s\", "
		       "\"weibull_shape\": %g, \"load\": %g, \"time_ms\": %g, \"link_gbps\": %g, "
		       "\"delay_us\": %g, \"proc_us\": %g, \"mtu\": %u, \"seed\": %" PRIu64 ", "
		       "\"fail_links\": \"%s\", "
		       "\"offered_gbps\": %.6f, \"throughput_gbps\": %.6f, \"per_server_mbps\": %.6f, "
		       "\"latency_us\": {\"mean\": %.4f, \"p50\": %.4f, \"p99\": %.4f, \"max\": %.4f}, "
		       "\"apl_hops\": %.6f, \"sent\": %" PRIu64 ", \"delivered\": %" PRIu64 ", "
		       "\"lost\": %" PRIu64 ", \"lost_by_reason\": {%s}, \"in_flight\": %" PRIu64 ", "
		       "\"flow_control\": %s, \"in_queue\": %u, \"out_queue\": %u, "
		       "\"credit_stalls\": %" PRIu64 ", \"credit_frames\": %" PRIu64 ", "
		       "\"sim_time_s\": %g, \"packet_hops\": %" PRIu64 ", "
		       "\"wall_s\": %.3f, \"packet_hops_per_s\": %.0f}\n",
		       sim_fabric_spec(f), n, o.traffic.c_str(), o.arrival.c_str(), o.weibull_shape,
		       o.load, o.time_ms, o.link_gbps, o.delay_us, o.proc_us, o.mtu, o.seed,
		       o.fail_links.c_str(), offered, thr, thr * 1e3 / n, mean,
		       pct(st.lat_ps, 0.5), pct(st.lat_ps, 0.99),
		       st.lat_ps.empty() ? 0 : st.lat_ps.back() / 1e6, apl, st.sent, st.delivered,
		       dropped, reasons.c_str(), in_flight, o.fc ? "true" : "false",
		       o.fcc.in_queue, o.fcc.out_queue, fc.stalls, fc.credit_frames,
		       secs, st.hop_events, wall_s,
		       wall_s > 0 ? (double)st.hop_events / wall_s : 0);
		return;
	}
	printf("dcn-sim %s: %u servers, %s traffic, %s arrivals, load %g of %g Gbps, "
	       "%g ms simulated\n", sim_fabric_spec(f), n, o.traffic.c_str(), o.arrival.c_str(),
	       o.load, o.link_gbps, o.time_ms);
	printf("  offered %.3f Gbps, delivered %.3f Gbps (%.3f Mbps a server)\n", offered, thr,
	       thr * 1e3 / n);
	printf("  latency us: mean %.2f  p50 %.2f  p99 %.2f  max %.2f; %.3f hops a frame\n",
	       mean, pct(st.lat_ps, 0.5), pct(st.lat_ps, 0.99),
	       st.lat_ps.empty() ? 0 : st.lat_ps.back() / 1e6, apl);
	printf("  frames sent %" PRIu64 ", delivered %" PRIu64 ", lost %" PRIu64
	       " {%s}, in flight at the end %" PRIu64 "\n",
	       st.sent, st.delivered, dropped, reasons.c_str(), in_flight);
	if (o.fc)
		printf("  flow control: input queues of %u slots, %" PRIu64 " credit frames, "
		       "%" PRIu64 " sends stalled for credits\n", o.fcc.in_queue,
		       fc.credit_frames, fc.stalls);
	printf("  %" PRIu64 " packet-hops in %.2f s of wall time (%.0f a second)\n", st.hop_events,
	       wall_s, wall_s > 0 ? (double)st.hop_events / wall_s : 0);
}

} // namespace

/* EAL in this process, as the unit tests start it: mbufs from the heap,
 * no devices, a runtime directory of its own, removed however the run
 * ends once it has begun. */
class Eal {
public:
	explicit Eal(const std::string &prefix) : dir("/var/run/dpdk/" + prefix) {}
	~Eal()
	{
		std::error_code ec;

		if (up)
			rte_eal_cleanup();
		std::filesystem::remove_all(dir, ec);
	}
	bool Start(char *argv0, unsigned int mb)
	{
		std::string m = std::to_string(mb), fp = "--file-prefix=" +
							  dir.substr(dir.rfind('/') + 1);
		const char *eal[] = { argv0, "--no-huge", "-m", m.c_str(), "--no-pci", fp.c_str(),
				      "--log-level=4", "--no-telemetry", nullptr };

		up = rte_eal_init(8, (char **)eal) >= 0;
		return up;
	}

private:
	std::string dir;
	bool up = false;
};

int
main(int argc, char **argv)
{
	Options o;
	int rc = sim_parse(argc, argv, o);

	if (rc != 0)
		return rc;
	Eal eal("dcn-sim-" + std::to_string(getpid()));

	if (!eal.Start(argv[0], std::max(768u, sim_memory_mb(o.spec.c_str(), o.mtu,
							     o.fc ? &o.fcc : nullptr)))) {
		fprintf(stderr, "dcn-sim: EAL did not start (--no-huge memory?)\n");
		return 77;
	}
	char err[256] = "";
	struct sim_fabric *f = sim_fabric_create(o.spec.c_str(), o.fail_links.c_str(), o.mtu,
						 o.fc ? &o.fcc : nullptr, err, sizeof(err));
	if (f == NULL) {
		fprintf(stderr, "dcn-sim: %s: %s\n", o.spec.c_str(), err);
		return 1;
	}
	if (sim_servers(f) < 2) {
		fprintf(stderr, "dcn-sim: %s: fewer than two servers\n", o.spec.c_str());
		sim_fabric_free(f);
		return 1;
	}
	RngSeedManager::SetSeed((uint32_t)o.seed);
	RngSeedManager::SetRun(1);
	auto t0 = std::chrono::steady_clock::now();
	{
		Sim sim(o, f);

		if (!o.pcap.empty() && sim.OpenPcaps() != 0) {
			sim_fabric_free(f);
			return 1;
		}
		sim.Run();
		double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
				      .count();
		if (!o.paths)
			sim.Report(wall);
		Simulator::Destroy();
	}
	sim_fabric_free(f);
	return 0;
}
