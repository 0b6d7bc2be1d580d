import ArgumentParser
import LoadGen

/// `--io auto|events|threads`.
extension LoadPlan.IOMode: ExpressibleByArgument {}
