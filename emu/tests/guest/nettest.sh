#!/bin/busybox sh
# panlab-nettest: fetches /hello.txt from the phone's in-emulator content
# server over virtio-net and libslirp, and prints it.
ifconfig eth0 10.0.2.15 netmask 255.255.255.0 up || exit 1
route add default gw 10.0.2.2 || exit 1
wget -q -O /tmp/hello.txt http://10.0.2.100/hello.txt || exit 1
echo "panlab-nettest: got $(cat /tmp/hello.txt)"
