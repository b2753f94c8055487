print("this script never calls qd.init")
