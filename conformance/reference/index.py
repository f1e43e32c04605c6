from .family import Family

def cases():
    return Family("index")
