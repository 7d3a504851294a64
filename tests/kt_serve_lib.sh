# SPDX-License-Identifier: MIT
# Sourced by the scripts that start `npukit kt serve --listen 127.0.0.1:0`: the server binds an
# ephemeral port and announces it on its first line ("listening on HOST:PORT ...").

# The port announced in FILE, the server's standard output; waits up to 20 s for the line.
# Prints nothing and fails when it never comes.
kt_served_port() {
    local i
    for i in $(seq 200); do
        if grep -q '^listening on' "$1" 2>/dev/null; then
            sed -n 's/^listening on [^ ]*:\([0-9]*\) .*/\1/p' "$1"
            return 0
        fi
        sleep 0.1
    done
    return 1
}
