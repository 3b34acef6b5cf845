#!/bin/sh
# make-content.sh DIR: Weston's configuration and the script its autolaunch
# runs, which starts the two clients, into DIR (/oss/weston in the guest).
set -e
dir=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
cp "$dir/weston.ini" "$1/weston.ini"
cp "$dir/clients" "$1/clients"
chmod 755 "$1/clients"
