try:  # a Ctrl-C while the command's modules load (about a second) is one line too, not an import traceback
    from flexmbs.cli.app import main
except KeyboardInterrupt:
    import sys

    sys.stderr.write("error: interrupted\n")
    sys.exit(130)

main()
