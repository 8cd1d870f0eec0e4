# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest scripts that load test_hmm (guest/smoke,
# tools/selftests/hmm/guest-hmm-break.sh).
#
# test_hmm_spm [CMDLINE]: sets the array spm to test_hmm's spm_addr_dev0/1
# for its two 256 MiB device-coherent chunks (its DEVMEM_CHUNK_SIZE), on
# the 512 MiB that vm-run --reserve 512M@ADDR keeps from the guest kernel
# (memmap=512M$ADDR on the command line, read from CMDLINE, by default
# /proc/cmdline); empty without such a reservation
test_hmm_spm() {
	local arg base
	local -a cmdline

	spm=()
	read -r -a cmdline <"${1:-/proc/cmdline}"
	for arg in "${cmdline[@]}"; do
		case "$arg" in
		memmap=512M\$*) base=$((${arg#*\$}))
			spm=("spm_addr_dev0=$base" "spm_addr_dev1=$((base + (256 << 20)))") ;;
		esac
	done
}
