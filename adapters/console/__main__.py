from adapters.console.app import main

main()
