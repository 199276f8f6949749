from flexmbs.cli.app import main

main()
