'''
s=s.replace(old,new,1)
open(p,'w').write(s)
