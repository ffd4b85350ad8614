/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_SIM_OPTIONS_H
#define DCN_SIM_OPTIONS_H

/* dcn-sim's command line: its options, their defaults (the NovaCube
 * paper's NS-3 setting where it gives one), --help. */
#include <cstdint>
#include <string>

#include "sim_fabric.h"

struct Options {
	std::string spec;
	std::string traffic = "permutation";
	std::string arrival = "weibull";
	std::string fail_links;
	std::string pcap;          /* file prefix; empty: none */
	std::string pcap_vertices; /* ';'-separated names; empty: server 0's */
	double load = 0.5;
	double time_ms = 10;
	double link_gbps = 1;
	double delay_us = 4;
	double proc_us = 1.5;
	double weibull_shape = 2;
	unsigned int mtu = 1500;
	unsigned int incast = 4;
	unsigned int switch_buffer = 1024;
	bool fc = true;
	struct sim_fc_conf fcc = { 256, 512, 20, 256, 1000, 4 };
	uint64_t seed = 1;
	bool json = false;
	bool paths = false;
};

/* Options from argv into o. @return 0, or the exit status (2: a usage
 * error, told on stderr); --help and --version exit 0 themselves. */
int sim_parse(int argc, char **argv, Options &o);

#endif /* DCN_SIM_OPTIONS_H */
