/* SPDX-License-Identifier: BSD-3-Clause */
/* dcn-sim's command line. */
#include <cstdio>
#include <cstdlib>
#include <string>

#include <ns3/version-defines.h>

#include "sim_options.h"

namespace {

void
usage(FILE *out)
{
	fprintf(out,
		"Usage: dcn-sim [options] SPEC\n"
		"A fabric in simulated time (ns-3), each hop decided by the relays' own\n"
		"routing tables and forwarding step.\n\n"
		"  --traffic T       permutation (default), uniform, all-to-all, pairs, incast\n"
		"  --incast N        incast: servers 1..N send to server 0 (default 4)\n"
		"  --load F          each sender's rate, a fraction of the line rate (0.5)\n"
		"  --arrival A       weibull (default), poisson, constant\n"
		"  --weibull-shape K shape of the Weibull gaps (default 2)\n"
		"  --time-ms T       simulated time of traffic (default 10)\n"
		"  --link-gbps G     link rate (default 1)\n"
		"  --delay-us D      propagation delay a link (default 4)\n"
		"  --proc-us P       a relay's processing time a frame (default 1.5)\n"
		"  --mtu B           IPv4 packet bytes (default 1500)\n"
		"  --flow-control on|off  the relays' credits (lib/fc; default on)\n"
		"  --in-queue N      a port's input queue slots (default 256)\n"
		"  --out-queue N     frames an output queue admits (default 512; without\n"
		"                    flow control, a relay port's FIFO, tail drop)\n"
		"  --credit-batch N  frames freed before a credit frame (default 256,\n"
		"                    at most a quarter of the grant)\n"
		"  --credit-refresh-us U  credits announced at least this often (1000)\n"
		"  --switch-buffer N an L2 switch port's buffer, frames (default 1024)\n"
		"  --fail-links L    cables down from the start, known to every relay\n"
		"                    (dcn-topo's names: \"NAME:PORT;NAME~NAME\")\n"
		"  --seed S          random streams' seed (default 1)\n"
		"  --paths           one frame a pair, alone: print each one's path, the\n"
		"                    port it left each vertex by (VERTEX:PORT ... DST)\n"
		"  --pcap PREFIX     what each port of the captured vertices sends, in\n"
		"                    PREFIX-VERTEX-PORT.pcap (VERTEX its index, #N)\n"
		"  --pcap-vertex V   the vertices captured, ';'-separated (default: the\n"
		"                    first server's)\n"
		"  --json            one JSON object\n"
		"  --help, --version\n\n"
		"Defaults are the NovaCube paper's NS-3 setting (its section 8).\n");
}

} // namespace

int
sim_parse(int argc, char **argv, Options &o)
{
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		auto val = [&](void) -> const char * {
			if (i + 1 >= argc) {
				fprintf(stderr, "dcn-sim: %s needs a value\n", a.c_str());
				exit(2);
			}
			return argv[++i];
		};
		auto num = [&](double lo, double hi) -> double {
			const char *v = val();
			char *end;
			double x = strtod(v, &end);

			if (*v == '\0' || *end != '\0' || !(x >= lo && x <= hi)) {
				fprintf(stderr, "dcn-sim: %s %s: a number from %g to %g\n",
					a.c_str(), v, lo, hi);
				exit(2);
			}
			return x;
		};

		if (a == "--help" || a == "-h") {
			usage(stdout);
			exit(0);
		} else if (a == "--version") {
			printf("dcn-sim %s (ns-3 %d.%d)\n", DCN_VERSION, NS3_VERSION_MAJOR,
			       NS3_VERSION_MINOR);
			exit(0);
		} else if (a == "--traffic") {
			o.traffic = val();
			if (o.traffic != "permutation" && o.traffic != "uniform" &&
			    o.traffic != "all-to-all" && o.traffic != "pairs" && o.traffic != "incast") {
				fprintf(stderr, "dcn-sim: --traffic %s: permutation, uniform, "
					"all-to-all, pairs or incast\n", o.traffic.c_str());
				return 2;
			}
		} else if (a == "--arrival") {
			o.arrival = val();
			if (o.arrival != "weibull" && o.arrival != "poisson" && o.arrival != "constant") {
				fprintf(stderr, "dcn-sim: --arrival %s: weibull, poisson or constant\n",
					o.arrival.c_str());
				return 2;
			}
		} else if (a == "--load") {
			o.load = num(1e-6, 1);
		} else if (a == "--incast") {
			o.incast = (unsigned int)num(1, 1e6);
		} else if (a == "--weibull-shape") {
			o.weibull_shape = num(0.1, 100);
		} else if (a == "--time-ms") {
			o.time_ms = num(1e-3, 1e6);
		} else if (a == "--link-gbps") {
			o.link_gbps = num(1e-3, 1e4);
		} else if (a == "--delay-us") {
			o.delay_us = num(0, 1e6);
		} else if (a == "--proc-us") {
			o.proc_us = num(0, 1e6);
		} else if (a == "--mtu") {
			o.mtu = (unsigned int)num(64, 9000);
		} else if (a == "--seed") {
			o.seed = (uint64_t)num(1, 4e9);
		} else if (a == "--fail-links") {
			o.fail_links = val();
		} else if (a == "--flow-control") {
			std::string v = val();

			if (v != "on" && v != "off") {
				fprintf(stderr, "dcn-sim: --flow-control %s: on or off\n", v.c_str());
				return 2;
			}
			o.fc = v == "on";
		} else if (a == "--switch-buffer") {
			o.switch_buffer = (unsigned int)num(1, 1 << 24);
		} else if (a == "--in-queue") {
			o.fcc.in_queue = (unsigned int)num(16, 1 << 16);
		} else if (a == "--out-queue") {
			o.fcc.out_queue = (unsigned int)num(16, 1 << 18);
		} else if (a == "--credit-batch") {
			o.fcc.credit_batch = (unsigned int)num(1, 1024);
		} else if (a == "--credit-refresh-us") {
			o.fcc.credit_refresh_us = num(10, 1e6);
		} else if (a == "--pcap") {
			o.pcap = val();
		} else if (a == "--pcap-vertex") {
			o.pcap_vertices = val();
		} else if (a == "--json") {
			o.json = true;
		} else if (a == "--paths") {
			o.paths = true;
		} else if (a.size() > 1 && a[0] == '-') {
			fprintf(stderr, "dcn-sim: unknown option %s (--help)\n", a.c_str());
			return 2;
		} else if (o.spec.empty()) {
			o.spec = a;
		} else {
			fprintf(stderr, "dcn-sim: one SPEC only (%s, %s)\n", o.spec.c_str(), a.c_str());
			return 2;
		}
	}
	if (o.spec.empty()) {
		usage(stderr);
		return 2;
	}
	return 0;
}

