#!/bin/sh
# Runs a command in a tmux pane, then says how it ended and whether the tty modes came back.
before=$(stty -g)
"$@"
echo "exit=$?"
if [ "$(stty -g)" = "$before" ]; then echo "tty=restored"; else echo "tty=changed"; fi
exec sleep 600
