from flexmbs.cli import main

main()
