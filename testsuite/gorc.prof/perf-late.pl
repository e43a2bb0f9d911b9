# gorc.prof: move the executable mapping of PROGRAM (its first
# PERF_RECORD_MMAP2 whose file name ends in /PROGRAM) to the end of a
# perf.data's data section, after every round: its time is unchanged, so
# in time order it still comes before the samples that need it.
#   perl perf-late.pl PROGRAM IN >OUT
use strict;
local $/;
my ($program, $file) = @ARGV;
open(my $in, '<:raw', $file) or die;
my $d = <$in>;
my ($doff, $dsize) = unpack('Q<Q<', substr($d, 40, 16));
my $at = $doff;
while ($at < $doff + $dsize) {
  my ($type, $misc, $size) = unpack('L<S<S<', substr($d, $at, 8));
  # MMAP2: the header (8 bytes), pid tid addr len pgoff maj min ino
  # ino_generation (56), prot (PROT_EXEC: 4) flags, the file name
  if ($type == 10 && (unpack('L<', substr($d, $at + 64, 4)) & 4)) {
    my ($name) = unpack('Z*', substr($d, $at + 72, $size - 72));
    if ($name =~ m{/\Q$program\E$}) {
      my $rec = substr($d, $at, $size, '');
      substr($d, $doff + $dsize - $size, 0) = $rec;
      print $d;
      exit 0;
    }
  }
  $at += $size;
}
die "no executable mapping of $program";
