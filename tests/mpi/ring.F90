! SPDX-License-Identifier: BSD-3-Clause
! tests/mpi: mpi_ring.c's twin in Fortran, built once per binding (src/hpm_mpi
! interposes the Fortran bindings): -DMPIFH include 'mpif.h', -DUSEMPI use
! mpi, -DF08 use mpi_f08. The program: ARGV(1) bytes (default 1024) passed
! around the ring ARGV(2) times (default 1) with MPI_SENDRECV_REPLACE, rank r
! then runs r + 1 rounds of a loop, and all take part in one MPI_ALLREDUCE
! of two integers (8 bytes). The loop is inside an MPI_PCONTROL(1) region.
program ring
#if defined(F08)
  use mpi_f08
#elif defined(USEMPI)
  use mpi
#endif
  implicit none
#if defined(MPIFH)
  include 'mpif.h'
#endif
#if defined(F08)
  type(MPI_Status) :: status
#else
  integer :: status(MPI_STATUS_SIZE)
#endif
  integer :: rank, nranks, bytes, k, i, ierr
  integer :: inv(2), outv(2)
  integer(8) :: j
  integer(8), volatile :: sink
  character(len=32) :: arg
  character, allocatable :: buf(:)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  bytes = 1024
  k = 1
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) bytes
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) k
  end if
  allocate (buf(max(bytes, 1)))
  buf = ' '
  do i = 1, k
    call MPI_SENDRECV_REPLACE(buf, bytes, MPI_CHARACTER, mod(rank + 1, nranks), 0, &
                              mod(rank + nranks - 1, nranks), 0, MPI_COMM_WORLD, status, ierr)
  end do
  call MPI_PCONTROL(1)
  sink = 0
  do j = 0, int(rank + 1, 8) * 2000000 - 1
    sink = sink + j
  end do
  call MPI_PCONTROL(-1)
  inv = (/ rank, 1 /)
  call MPI_ALLREDUCE(inv, outv, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (outv(2) /= nranks .or. sink < 0) call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
  deallocate (buf)
  call MPI_FINALIZE(ierr)
end program ring
